import { describe, expect, it } from 'vitest';
import { tokenHash } from '../../../core/auth/digest.ts';
import { s256Challenge } from '../../../core/auth/pkce.ts';
import type { Authorization } from '../../../core/auth/store/authorizations.ts';
import { oauth2AuthorizationKind } from '../../../core/resources/oauth2-authorization/schema.ts';
import { authorize, Browser, postForm, startAuthApp, type AuthApp } from '../../../test/support/auth-app.ts';

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
const ADMIN = basic('admin', 'pw');
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const VERIFIER = 'v'.repeat(43);

/** Signs `username` in at client `clientId` with consent, and exchanges the code: one authorization with tokens. */
async function grant(app: AuthApp, clientId: string, username: string): Promise<Record<string, string>> {
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid profile',
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
    state: 'st',
  });
  const callback = await authorize(new Browser(app.url), `/oauth2/authorize?${query}`, { username, password: 'pw' });
  const code = new URL(callback.location!).searchParams.get('code')!;
  const tokens = await postForm(app.url, '/oauth2/token', {
    client_id: clientId,
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: VERIFIER,
  });
  expect(tokens.status).toBe(200);
  return { code, ...tokens.body };
}

async function setup() {
  const app = await startAuthApp();
  await app.addUser('admin', 'pw', { authorities: ['ALL'] });
  await app.addUser('ada', 'pw');
  await app.addUser('bob', 'pw');
  for (const clientId of ['cli', 'other'])
    await app.addClient({
      clientId,
      clientSettings: { requireProofKey: true, requireAuthorizationConsent: true },
    });
  return app;
}

async function get(app: AuthApp, path: string, auth: string | null = ADMIN, method = 'GET') {
  const response = await fetch(`${app.url}${path}`, { method, headers: auth ? { authorization: auth } : {} });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

describe('/api/oAuth2Authorizations and /api/oAuth2AuthorizationConsents', () => {
  it('lists the authorizations by time and state of each token, never a hash or a token', async () => {
    const app = await setup();
    const issued = await grant(app, 'cli', 'ada');
    await grant(app, 'other', 'bob');
    const list = await get(app, '/api/oAuth2Authorizations');
    expect(list.status).toBe(200);
    expect(list.body.pager).toEqual({ page: 1, pageSize: 50, pageCount: 1, total: 2 });
    const records = (await app.cluster.list<Authorization>(oauth2AuthorizationKind, { namespace: 'default' })).items;
    const ada = records.find((r) => r.spec.principalName === 'ada')!;
    expect(list.body.oAuth2Authorizations.map((a: { principalName: string }) => a.principalName).sort()).toEqual([
      'ada',
      'bob',
    ]);
    const shown = list.body.oAuth2Authorizations.find((a: { id: string }) => a.id === ada.metadata.name);
    expect(shown).toEqual({
      id: ada.metadata.name,
      registeredClientId: 'cli',
      principalName: 'ada',
      authorizationGrantType: 'authorization_code',
      authorizedScopes: 'openid,profile',
      created: ada.metadata.creationTimestamp,
      lastUpdated: ada.spec.accessToken!.issuedAt,
      authorizationCodeIssuedAt: ada.spec.authorizationCode!.issuedAt,
      authorizationCodeExpiresAt: ada.spec.authorizationCode!.expiresAt,
      authorizationCodeInvalidated: true,
      accessTokenIssuedAt: ada.spec.accessToken!.issuedAt,
      accessTokenExpiresAt: ada.spec.accessToken!.expiresAt,
      accessTokenInvalidated: false,
      refreshTokenIssuedAt: ada.spec.refreshToken!.issuedAt,
      refreshTokenExpiresAt: ada.spec.refreshToken!.expiresAt,
      refreshTokenInvalidated: false,
      oidcIdTokenIssuedAt: ada.spec.idToken!.issuedAt,
      oidcIdTokenExpiresAt: ada.spec.idToken!.expiresAt,
      oidcIdTokenInvalidated: false,
      revoked: false,
    });
    // Nothing the store holds about the tokens but their times, and none of the values the client got.
    const secrets = records.flatMap((r) =>
      [r.spec.authorizationCode, r.spec.accessToken, r.spec.refreshToken, r.spec.idToken]
        .map((t) => t?.hash)
        .concat(r.spec.codeChallenge, r.spec.nonce),
    );
    const values = [issued.code, issued.access_token, issued.refresh_token, issued.id_token];
    for (const path of ['/api/oAuth2Authorizations', `/api/oAuth2Authorizations/${ada.metadata.name}`]) {
      const { text } = await get(app, path);
      for (const secret of [...secrets, ...values].filter((s): s is string => Boolean(s)))
        expect(text, path).not.toContain(secret);
      expect(text).not.toMatch(/hash|codeChallenge|nonce/i);
    }
    expect((await get(app, `/api/oAuth2Authorizations/${ada.metadata.name}`)).body).toEqual(shown);
  });

  it('records each token by a hash: of the value of the access and the refresh token, of the ID token signing input', async () => {
    const app = await setup();
    const issued = await grant(app, 'cli', 'ada');
    const [record] = (await app.cluster.list<Authorization>(oauth2AuthorizationKind, { namespace: 'default' })).items;
    expect(record!.spec.accessToken!.hash).toBe(tokenHash(issued.access_token!));
    expect(record!.spec.refreshToken!.hash).toBe(tokenHash(issued.refresh_token!));
    // RS256 signatures are deterministic: the header and claims name the ID token as its whole value would, and
    // its record is written while it is signed.
    const [header, claims] = issued.id_token!.split('.');
    expect(record!.spec.idToken!.hash).toBe(tokenHash(`${header}.${claims}`));
  });

  it('shows a revoked authorization as such, with why and when', async () => {
    const app = await setup();
    const issued = await grant(app, 'cli', 'ada');
    expect((await postForm(app.url, '/oauth2/revoke', { token: issued.refresh_token! })).status).toBe(200);
    const [revoked] = (await get(app, '/api/oAuth2Authorizations')).body.oAuth2Authorizations;
    expect(revoked).toMatchObject({
      revoked: true,
      revocationReason: 'revoked-by-client',
      accessTokenInvalidated: true,
      refreshTokenInvalidated: true,
    });
    expect(revoked.lastUpdated).toBe(revoked.revokedAt);
  });

  it('lists the consents, filters by client and user, and pages in a stable order', async () => {
    const app = await setup();
    await grant(app, 'cli', 'ada');
    await grant(app, 'other', 'ada');
    await grant(app, 'cli', 'bob');
    const all = await get(app, '/api/oAuth2AuthorizationConsents');
    expect(all.body.pager).toEqual({ page: 1, pageSize: 50, pageCount: 1, total: 3 });
    const consents = all.body.oAuth2AuthorizationConsents;
    const adaAtCli = consents.find(
      (c: Record<string, string>) => c.principalName === 'ada' && c.registeredClientId === 'cli',
    );
    expect(adaAtCli).toEqual({
      id: expect.stringMatching(/^consent-[0-9a-f]{40}$/),
      registeredClientId: 'cli',
      principalName: 'ada',
      scopes: 'openid,profile',
      authorities: 'SCOPE_openid,SCOPE_profile',
      created: expect.any(String),
    });
    const ids = consents.map((c: { id: string }) => c.id);
    const pages = [];
    for (const page of [1, 2, 3]) {
      const one = await get(app, `/api/oAuth2AuthorizationConsents?pageSize=1&page=${page}&fields=id`);
      expect(one.body.pager).toEqual({ page, pageSize: 1, pageCount: 3, total: 3 });
      pages.push(...one.body.oAuth2AuthorizationConsents.map((c: { id: string }) => c.id));
    }
    expect(pages).toEqual(ids);
    expect(
      (await get(app, '/api/oAuth2AuthorizationConsents?page=4&pageSize=1')).body.oAuth2AuthorizationConsents,
    ).toEqual([]);

    const ofAda = await get(app, '/api/oAuth2AuthorizationConsents?principalName=ada&fields=registeredClientId');
    expect(ofAda.body.oAuth2AuthorizationConsents).toEqual(
      expect.arrayContaining([{ registeredClientId: 'cli' }, { registeredClientId: 'other' }]),
    );
    expect(ofAda.body.pager.total).toBe(2);
    const ofCli = await get(app, '/api/oAuth2Authorizations?clientId=cli&fields=principalName,registeredClientId');
    expect(ofCli.body.oAuth2Authorizations).toEqual(
      expect.arrayContaining([
        { principalName: 'ada', registeredClientId: 'cli' },
        { principalName: 'bob', registeredClientId: 'cli' },
      ]),
    );
    expect(ofCli.body.pager.total).toBe(2);
    const one = await get(app, `/api/oAuth2AuthorizationConsents/${adaAtCli.id}?fields=scopes`);
    expect(one.body).toEqual({ scopes: 'openid,profile' });
    expect((await get(app, `/api/oAuth2AuthorizationConsents/${adaAtCli.id}?fields=*`)).body).toEqual(adaAtCli);
  });

  it('ignores a member it does not have, as DHIS2 does, and answers 404 for an unknown id', async () => {
    const app = await setup();
    await grant(app, 'cli', 'ada');
    const asked = await get(app, '/api/oAuth2Authorizations?fields=id,accessTokenValue');
    expect(asked.status).toBe(200);
    expect(asked.body.oAuth2Authorizations.length).toBeGreaterThan(0);
    for (const record of asked.body.oAuth2Authorizations) expect(Object.keys(record)).toEqual(['id']);
    const unpaged = await get(app, '/api/oAuth2Authorizations?paging=false&fields=id');
    expect(unpaged.body.pager).toBeUndefined();
    expect(unpaged.body.oAuth2Authorizations).toEqual(asked.body.oAuth2Authorizations);
    for (const path of [
      '/api/oAuth2Authorizations/authz-00000000000000000000000000000000',
      '/api/oAuth2Authorizations/authz-x.y',
      '/api/oAuth2AuthorizationConsents/consent-0000000000000000000000000000000000000000',
      '/api/oAuth2AuthorizationConsents/authz-x',
    ]) {
      const missing = await get(app, path);
      expect(missing.status, path).toBe(404);
      expect(missing.body.detail).toMatch(/^No OAuth2 authorization (consent )?has the id/);
    }
  });

  it('is the superuser’s and read-only', async () => {
    const app = await setup();
    for (const path of ['/api/oAuth2Authorizations', '/api/oAuth2AuthorizationConsents']) {
      const anonymous = await get(app, path, null);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
      expect((await get(app, `${path}/x`, basic('ada', 'pw'))).status).toBe(403);
      expect((await get(app, path, basic('ada', 'pw'))).body).toEqual({
        detail: 'This request needs the authority ALL.',
      });
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const refused = await get(app, `${path}/x`, ADMIN, method);
        expect(refused.status, `${method} ${path}`).toBe(405);
        expect(refused.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      }
    }
  });

  it('is in the OpenAPI document', async () => {
    const app = await setup();
    const doc = (await get(app, '/openapi.json', null)).body;
    for (const [path, methods] of [
      ['/api/systemSettings', ['get', 'post']],
      ['/api/systemSettings/{key}', ['get', 'post', 'delete']],
      ['/api/oAuth2Authorizations', ['get']],
      ['/api/oAuth2Authorizations/{id}', ['get']],
      ['/api/oAuth2AuthorizationConsents', ['get']],
      ['/api/oAuth2AuthorizationConsents/{id}', ['get']],
    ] as const)
      expect(Object.keys(doc.paths[path] ?? {}).sort(), path).toEqual([...methods].sort());
    expect(Object.keys(doc.paths['/api/systemSettings/{key}'].post.requestBody.content)).toEqual(['text/plain']);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.filter((r) => !doc.components.schemas[r])).toEqual([]);
  });
});
