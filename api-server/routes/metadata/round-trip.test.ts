/**
 * The acceptance of issue 43's metadata import: export the clients (`GET /api/oAuth2Clients?fields=*`), delete
 * them, import the export, and every client authenticates as before with an unmodified OAuth 2.0 client
 * (oauth4webapi): client_secret_basic, client_secret_jwt, private_key_jwt, a public PKCE client, and a client stored
 * without PKCE, which keeps its stored settings. The secrets are never exported: the administrator adds them.
 */
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { startAuthApp, type AuthApp } from '../../../test/support/auth-app.ts';
import { authorizeWithOauth4webapi, insecure, REDIRECT_URI } from '../../../test/support/oauth4webapi-flow.ts';

const ADMIN = `Basic ${Buffer.from('admin:admin pw').toString('base64')}`;
const JWT_SECRET = 'a shared secret of at least thirty-two bytes';

async function api(app: AuthApp, method: string, path: string, body?: unknown) {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: { authorization: ADMIN, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(answer)).toBeLessThan(300);
  return answer;
}

const clientOf = (clientId: string, methods: string, extra: Record<string, unknown> = {}) => ({
  clientId,
  clientAuthenticationMethods: methods,
  authorizationGrantTypes: 'authorization_code,refresh_token',
  redirectUris: REDIRECT_URI,
  scopes: 'openid,username',
  clientSettings: JSON.stringify({
    'settings.client.require-proof-key': true,
    'settings.client.require-authorization-consent': false,
  }),
  ...extra,
});

/** A code flow of the client with oauth4webapi, with S256 PKCE unless `pkce` is false; its ID token's audience. */
async function signsIn(app: AuthApp, clientId: string, auth: oauth.ClientAuth, pkce = true): Promise<unknown> {
  const verifier = oauth.generateRandomCodeVerifier();
  const { as, params } = await authorizeWithOauth4webapi(app, clientId, pkce ? verifier : undefined);
  const registered: oauth.Client = { client_id: clientId };
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    registered,
    await oauth.authorizationCodeGrantRequest(
      as,
      registered,
      auth,
      params,
      REDIRECT_URI,
      pkce ? verifier : oauth.nopkce,
      insecure,
    ),
  );
  return oauth.getValidatedIdTokenClaims(tokens)?.aud;
}

describe('exporting, deleting and importing the clients', () => {
  it('brings back every client, which authenticates as before with its stored settings', async () => {
    const app = await startAuthApp();
    await app.addUser('ada', 'correct horse');
    await app.addUser('admin', 'admin pw', { authorities: ['F_OAUTH2_CLIENT_MANAGE'] });
    const { privateKey, publicKey } = await oauth.generateKeyPair('ES256');
    const jwks = { keys: [{ ...(await crypto.subtle.exportKey('jwk', publicKey)), kid: 'device-key' }] };
    const secrets: Record<string, string> = { basic: 'basic secret', portal: JWT_SECRET, legacy: 'legacy secret' };
    await api(
      app,
      'POST',
      '/api/oAuth2Clients',
      clientOf('basic', 'client_secret_basic', { clientSecret: secrets.basic }),
    );
    await api(app, 'POST', '/api/oAuth2Clients', clientOf('portal', 'client_secret_jwt', { clientSecret: JWT_SECRET }));
    await api(app, 'POST', '/api/oAuth2Clients', clientOf('device', 'private_key_jwt', { jwks: JSON.stringify(jwks) }));
    await api(app, 'POST', '/api/oAuth2Clients', clientOf('cli', 'none'));
    // Stored before the PKCE rule: the client API would refuse it today.
    await app.addClient(
      {
        clientId: 'legacy',
        clientAuthenticationMethods: ['client_secret_basic'],
        redirectUris: [REDIRECT_URI],
        scopes: ['openid', 'username'],
        clientSettings: { requireProofKey: false, requireAuthorizationConsent: false },
      },
      secrets.legacy,
    );
    const auths: [string, oauth.ClientAuth, boolean][] = [
      ['basic', oauth.ClientSecretBasic(secrets.basic!), true],
      ['portal', oauth.ClientSecretJwt(JWT_SECRET), true],
      ['device', oauth.PrivateKeyJwt({ key: privateKey, kid: 'device-key' }), true],
      ['cli', oauth.None(), true],
      ['legacy', oauth.ClientSecretBasic(secrets.legacy!), false],
    ];
    for (const [clientId, auth, pkce] of auths) expect(await signsIn(app, clientId, auth, pkce)).toBe(clientId);

    const exported = (await api(app, 'GET', '/api/oAuth2Clients?fields=*&paging=false')) as {
      oAuth2Clients: Record<string, string>[];
    };
    expect(exported.oAuth2Clients).toHaveLength(5);
    expect(JSON.stringify(exported)).not.toContain('secret"');
    for (const { id } of exported.oAuth2Clients) await api(app, 'DELETE', `/api/oAuth2Clients/${id}`);
    expect(await api(app, 'GET', '/api/oAuth2Clients')).toMatchObject({ oAuth2Clients: [] });
    for (const [clientId, auth, pkce] of auths)
      await expect(signsIn(app, clientId, auth, pkce), clientId).rejects.toThrow();

    const body = {
      oAuth2Clients: exported.oAuth2Clients.map((c) => ({
        ...c,
        ...(secrets[c.clientId!] !== undefined && { clientSecret: secrets[c.clientId!] }),
      })),
    };
    const report = await api(app, 'POST', '/api/metadata', body);
    expect(report).toMatchObject({ status: 'OK', response: { stats: { created: 5, ignored: 0, total: 5 } } });
    const imported = (await api(app, 'GET', '/api/oAuth2Clients?fields=*&paging=false')) as typeof exported;
    const comparable = (list: typeof exported) =>
      list.oAuth2Clients.map(({ created: _c, lastUpdated: _l, ...rest }) => rest);
    expect(comparable(imported)).toEqual(comparable(exported));
    for (const [clientId, auth, pkce] of auths) expect(await signsIn(app, clientId, auth, pkce)).toBe(clientId);
  });
});
