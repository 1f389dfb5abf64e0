/**
 * The client administration `/api/oAuth2Clients` (spec 2) over real HTTP with the authorization server on: the
 * authority, every E4000 rule, the registrar hidden and refused, `fields`, compare-and-swap, the secret, and a
 * client created here completing a code + PKCE flow with openid-client.
 */
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { configMapKind } from '../../../core/cluster/builtin-kinds.ts';
import type { KubeObject } from '../../../core/cluster/objects.ts';
import { REGISTRAR_CLIENT_ID } from '../../../core/auth/clients/registrar.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../../core/resources/oauth2-client/schema.ts';
import { secretKind } from '../../../core/resources/secret.ts';
import { authorize, Browser, postForm, startAuthApp, type AuthApp } from '../../../test/support/auth-app.ts';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const PATH = '/api/oAuth2Clients';
const credentials = {
  admin: 'admin:admin pw',
  root: 'root:root pw',
  reader: 'reader:reader pw',
};

async function setup(): Promise<AuthApp> {
  const app = await startAuthApp();
  await app.addUser('admin', 'admin pw', { authorities: ['F_OAUTH2_CLIENT_MANAGE'] });
  await app.addUser('root', 'root pw', { authorities: ['ALL'] });
  await app.addUser('reader', 'reader pw', { authorities: ['F_DATASET_MANAGE'] });
  return app;
}

interface Answer {
  status: number;
  body: Record<string, unknown> & { response?: { uid?: string; errorReports?: Record<string, string>[] } };
}

async function call(
  app: AuthApp,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; as?: keyof typeof credentials | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const as = options.as === undefined ? 'admin' : options.as;
  if (as) headers.authorization = `Basic ${Buffer.from(credentials[as]).toString('base64')}`;
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${app.url}${path}`, { method, headers, body: payload });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

const portal = {
  clientId: 'portal',
  clientSecret: 'portal secret',
  name: 'Portal',
  clientAuthenticationMethods: 'client_secret_basic,client_secret_post',
  authorizationGrantTypes: 'authorization_code,refresh_token',
  redirectUris: REDIRECT_URI,
  scopes: 'openid,profile,username,email',
  clientSettings: JSON.stringify({
    'settings.client.require-proof-key': true,
    'settings.client.require-authorization-consent': false,
  }),
};

async function create(app: AuthApp, body: Record<string, unknown> = portal): Promise<string> {
  const created = await call(app, 'POST', PATH, { body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.response!.uid!;
}

/** Whether the token endpoint takes the client's credentials: a bad refresh token then fails as invalid_grant. */
async function authenticates(app: AuthApp, clientId: string, secret: string): Promise<boolean> {
  const answer = await postForm(app.url, '/oauth2/token', {
    client_id: clientId,
    client_secret: secret,
    grant_type: 'refresh_token',
    refresh_token: 'not-a-token',
  });
  if (answer.body.error === 'invalid_grant') return true;
  expect(answer.body.error).toBe('invalid_client');
  return false;
}

describe('who may administer clients', () => {
  it('asks an anonymous caller to sign in, refuses a user without F_OAUTH2_CLIENT_MANAGE, and admits ALL', async () => {
    const app = await setup();
    for (const [method, path] of [
      ['GET', PATH],
      ['GET', `${PATH}/x`],
      ['POST', PATH],
      ['PUT', `${PATH}/x`],
      ['DELETE', `${PATH}/x`],
    ] as const) {
      const body = method === 'POST' || method === 'PUT' ? portal : undefined;
      const anonymous = await call(app, method, path, { body, as: null });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expect((await call(app, method, path, { body, as: 'reader' })).status, `${method} ${path}`).toBe(403);
    }
    expect((await call(app, 'POST', PATH, { body: portal, as: 'root' })).status).toBe(201);
  });

  it('is absent when the authorization server is off', async () => {
    const { build } = await import('../../test/build.ts');
    const { app } = await build();
    expect((await app.inject({ url: PATH })).statusCode).toBe(404);
  });
});

describe('creating and reading clients', () => {
  it('creates a client with a DHIS2 uid and shows it in the representation of spec 2, never its secret', async () => {
    const app = await setup();
    const created = await call(app, 'POST', PATH, { body: portal });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      httpStatus: 'Created',
      httpStatusCode: 201,
      status: 'OK',
      response: { responseType: 'ObjectReport', errorReports: [] },
    });
    const uid = created.body.response!.uid!;
    expect(uid).toMatch(/^[A-Za-z][A-Za-z0-9]{10}$/);
    const shown = await call(app, 'GET', `${PATH}/${uid}`);
    expect(shown.body).toEqual({
      id: uid,
      name: 'Portal',
      displayName: 'Portal',
      clientId: 'portal',
      clientAuthenticationMethods: 'client_secret_basic,client_secret_post',
      authorizationGrantTypes: 'authorization_code,refresh_token',
      redirectUris: REDIRECT_URI,
      scopes: 'openid,profile,username,email',
      clientSettings: portal.clientSettings,
      created: expect.any(String),
      lastUpdated: expect.any(String),
    });
    expect(JSON.stringify(shown.body)).not.toContain('portal secret');
    expect(await authenticates(app, 'portal', 'portal secret')).toBe(true);
  });

  it('saves a client without clientSettings with both keys true, and names it after its id', async () => {
    const app = await setup();
    const uid = await create(app, {
      clientId: 'Mobile App',
      clientAuthenticationMethods: 'none',
      authorizationGrantTypes: 'authorization_code',
      scopes: 'openid',
    });
    const shown = await call(app, 'GET', `${PATH}/${uid}?fields=name,clientSettings`);
    expect(shown.body).toEqual({
      name: 'Mobile App',
      clientSettings: JSON.stringify({
        'settings.client.require-proof-key': true,
        'settings.client.require-authorization-consent': true,
      }),
    });
  });

  it('selects members with fields, lists id and displayName by default, and pages', async () => {
    const app = await setup();
    const a = await create(app, { ...portal, clientId: 'a', name: 'A' });
    const b = await create(app, { ...portal, clientId: 'b', name: 'B' });
    const listed = await call(app, 'GET', PATH);
    expect(listed.body).toEqual({
      pager: { page: 1, pageCount: 1, total: 2, pageSize: 50 },
      oAuth2Clients: [
        { id: a, displayName: 'A' },
        { id: b, displayName: 'B' },
      ],
    });
    const selected = await call(app, 'GET', `${PATH}?fields=clientId,nonsense&pageSize=1&page=2`);
    expect(selected.body).toEqual({
      pager: { page: 2, pageCount: 2, total: 2, pageSize: 1 },
      oAuth2Clients: [{ clientId: 'b' }],
    });
    const all = await call(app, 'GET', `${PATH}?fields=*&paging=false`);
    expect(all.body.pager).toBeUndefined();
    expect((all.body.oAuth2Clients as Record<string, unknown>[])[0]).toMatchObject({
      clientId: 'a',
      scopes: portal.scopes,
    });
    expect((await call(app, 'GET', `${PATH}/${a}?fields=id,clientId`)).body).toEqual({ id: a, clientId: 'a' });
    expect((await call(app, 'GET', `${PATH}/nope`)).status).toBe(404);
  });

  it('answers a client applied by hand, without a uid, by its resource name', async () => {
    const app = await setup();
    await app.addClient({ clientId: 'by-hand' });
    expect((await call(app, 'GET', `${PATH}/by-hand?fields=id,clientId`)).body).toEqual({
      id: 'by-hand',
      clientId: 'by-hand',
    });
  });
});

describe('the client rules of spec 2, each a 409 E4000', () => {
  const json = (value: unknown) => JSON.stringify(value);
  it.each([
    ['grant type client_credentials', { authorizationGrantTypes: 'client_credentials' }, 'authorizationGrantTypes'],
    ['a scope outside the four', { scopes: 'openid,dataset.read' }, 'scopes'],
    ['a reserved client.* scope', { scopes: 'openid,client.create' }, 'scopes'],
    ['clientSettings that is not JSON', { clientSettings: '{nope' }, 'clientSettings'],
    [
      'clientSettings without require-authorization-consent',
      { clientSettings: json({ 'settings.client.require-proof-key': true }) },
      'clientSettings',
    ],
    [
      'clientSettings with a string for a boolean',
      {
        clientSettings: json({
          'settings.client.require-proof-key': 'true',
          'settings.client.require-authorization-consent': true,
        }),
      },
      'clientSettings',
    ],
    [
      'require-proof-key false',
      {
        clientSettings: json({
          'settings.client.require-proof-key': false,
          'settings.client.require-authorization-consent': true,
        }),
      },
      'clientSettings',
    ],
    [
      'tokenSettings that is not JSON',
      { tokenSettings: '{"settings.token.reuse-refresh-tokens": tru' },
      'tokenSettings',
    ],
    [
      'tokenSettings with a value it cannot use',
      { tokenSettings: json({ 'settings.token.reuse-refresh-tokens': 'yes' }) },
      'tokenSettings',
    ],
    ['a custom-scheme redirect URI off the allow-list', { redirectUris: `${REDIRECT_URI},myapp://cb` }, 'redirectUris'],
    ['the reserved client id', { clientId: REGISTRAR_CLIENT_ID }, 'clientId'],
    ['an empty client id', { clientId: '' }, 'clientId'],
    ['a secret method without a secret', { clientSecret: undefined }, 'clientSecret'],
    ['an empty secret', { clientSecret: '' }, 'clientSecret'],
    ['private_key_jwt without jwks', { clientAuthenticationMethods: 'private_key_jwt' }, 'jwks'],
    [
      'an unknown authentication method',
      { clientAuthenticationMethods: 'tls_client_auth' },
      'clientAuthenticationMethods',
    ],
    ['no grant type', { authorizationGrantTypes: undefined }, 'authorizationGrantTypes'],
    ['a client id that is no string', { clientId: 42 }, 'clientId'],
    ['a list that is no string', { scopes: ['openid'] }, 'scopes'],
    ['a 70,000-character client id', { clientId: 'c'.repeat(70_000) }, 'clientId'],
    ['a name of 201 characters', { name: 'n'.repeat(201) }, 'name'],
    ['a secret of 201 characters', { clientSecret: 's'.repeat(201) }, 'clientSecret'],
    ['redirect URIs of 1001 characters', { redirectUris: `https://a.example.org/${'p'.repeat(979)}` }, 'redirectUris'],
    ['scopes of 1399 characters', { scopes: Array(200).fill('openid').join(',') }, 'scopes'],
    [
      'grant types of 1899 characters',
      { authorizationGrantTypes: Array(100).fill('authorization_code').join(',') },
      'authorizationGrantTypes',
    ],
    ['empty scopes', { scopes: '' }, 'scopes'],
    ['no scopes', { scopes: undefined }, 'scopes'],
  ] as const)('refuses %s', async (_what, change, property) => {
    const app = await setup();
    const refused = await call(app, 'POST', PATH, { body: { ...portal, ...change } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ httpStatus: 'Conflict', httpStatusCode: 409, status: 'ERROR' });
    expect(refused.body.response!.errorReports).toEqual([
      expect.objectContaining({ errorCode: 'E4000', errorProperty: property }),
    ]);
    expect((await call(app, 'GET', `${PATH}?fields=clientId`)).body.oAuth2Clients).toEqual([]);
  });

  it('refuses a client id that another client has, and reports every failure at once', async () => {
    const app = await setup();
    await create(app);
    const refused = await call(app, 'POST', PATH, {
      body: { ...portal, scopes: 'x', authorizationGrantTypes: 'implicit' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.response!.errorReports!.map((r) => r.errorProperty)).toEqual([
      'clientId',
      'authorizationGrantTypes',
      'scopes',
    ]);
  });

  it('takes a custom scheme on the allow-list, and a body that is not JSON is a 400', async () => {
    const app = await setup();
    await app.cluster.create<KubeObject>(configMapKind, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stratus-system-settings', namespace: 'default' },
      data: { deviceEnrollmentRedirectAllowlist: 'stratus://oauth,myapp://cb' },
    });
    await create(app, { ...portal, redirectUris: `${REDIRECT_URI},myapp://cb` });
    const malformed = await call(app, 'POST', PATH, { raw: '{"clientId": ' });
    expect(malformed.status).toBe(400);
    expect((await call(app, 'POST', PATH, { body: [portal] })).status).toBe(409);
  });
});

describe('hostile bodies', () => {
  it('are answered 2xx, 400 or 409 E4000, never 5xx', async () => {
    const app = await setup();
    const uid = await create(app);
    const values: unknown[] = [null, true, 0, 1e308, '', 'x'.repeat(70_000), [], {}, [1, 'a'], { __proto__: { a: 1 } }];
    const members = [
      'clientId',
      'clientSecret',
      'name',
      'scopes',
      'redirectUris',
      'clientSettings',
      'tokenSettings',
      'jwks',
    ];
    const bodies: unknown[] = [
      ...values,
      ...members.flatMap((m) => values.map((v) => ({ ...portal, clientId: 'h', [m]: v }))),
    ];
    for (const body of bodies)
      for (const [method, path] of [
        ['POST', PATH],
        ['PUT', `${PATH}/${uid}`],
      ] as const) {
        const answer = await call(app, method, path, { body });
        expect([200, 201, 409], `${method} ${JSON.stringify(body).slice(0, 80)}`).toContain(answer.status);
        if (answer.status === 409) expect(answer.body.response!.errorReports![0]!.errorCode).toBe('E4000');
      }
    for (const raw of ['{"clientId": ', 'null', '"text"', '[]'])
      expect([400, 409]).toContain((await call(app, 'POST', PATH, { raw })).status);
  });
});

describe('the internal registrar client', () => {
  it('is hidden from the list and from GET, and cannot be created, changed, renamed to or deleted', async () => {
    // The API server made the registrar at startup.
    const app = await setup();
    const uid = await create(app);
    expect((await call(app, 'GET', `${PATH}?fields=clientId`)).body.oAuth2Clients).toEqual([{ clientId: 'portal' }]);
    expect((await call(app, 'GET', `${PATH}/${REGISTRAR_CLIENT_ID}`)).status).toBe(404);
    for (const [method, path, body] of [
      ['POST', PATH, { ...portal, clientId: REGISTRAR_CLIENT_ID }],
      ['PUT', `${PATH}/${REGISTRAR_CLIENT_ID}`, { ...portal, clientId: REGISTRAR_CLIENT_ID }],
      ['PUT', `${PATH}/${REGISTRAR_CLIENT_ID}`, portal],
      ['PUT', `${PATH}/${uid}`, { ...portal, clientId: REGISTRAR_CLIENT_ID }],
      ['DELETE', `${PATH}/${REGISTRAR_CLIENT_ID}`, undefined],
    ] as const) {
      const refused = await call(app, method, path, { body });
      expect(refused.status, `${method} ${path}`).toBe(409);
      expect(refused.body.response!.errorReports![0]).toMatchObject({ errorCode: 'E4000', errorProperty: 'clientId' });
    }
    const registrar = await app.cluster.get<OAuth2Client & KubeObject>(
      oauth2ClientKind,
      REGISTRAR_CLIENT_ID,
      'default',
    );
    expect(registrar?.spec).toMatchObject({
      clientId: REGISTRAR_CLIENT_ID,
      authorizationGrantTypes: ['client_credentials'],
    });
    expect(await authenticates(app, 'portal', 'portal secret')).toBe(true);
  });
});

describe('replacing and deleting clients', () => {
  it('keeps the stored name and secret when a PUT has none, and renames the client id under a fixed uid', async () => {
    const app = await setup();
    const uid = await create(app);
    const { name: _name, clientSecret: _secret, ...rest } = portal;
    const replaced = await call(app, 'PUT', `${PATH}/${uid}`, {
      body: { ...rest, clientId: 'Portal 2', scopes: 'openid' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ httpStatusCode: 200, response: { uid, responseType: 'ObjectReport' } });
    expect((await call(app, 'GET', `${PATH}/${uid}?fields=name,clientId,scopes`)).body).toEqual({
      name: 'Portal',
      clientId: 'Portal 2',
      scopes: 'openid',
    });
    expect(await authenticates(app, 'Portal 2', 'portal secret')).toBe(true);
    expect(await authenticates(app, 'portal', 'portal secret')).toBe(false);
    // The old id is free again.
    await create(app);
  });

  it('invalidates the old secret at the token endpoint as soon as a PUT changes it', async () => {
    const app = await setup();
    const uid = await create(app);
    expect(await authenticates(app, 'portal', 'portal secret')).toBe(true);
    expect((await call(app, 'PUT', `${PATH}/${uid}`, { body: { ...portal, clientSecret: 'new secret' } })).status).toBe(
      200,
    );
    expect(await authenticates(app, 'portal', 'portal secret')).toBe(false);
    expect(await authenticates(app, 'portal', 'new secret')).toBe(true);
  });

  it('gives a public client a secret by PUT, and judges the PUT by the rules too', async () => {
    const app = await setup();
    const uid = await create(app, { ...portal, clientSecret: undefined, clientAuthenticationMethods: 'none' });
    const withoutSecret = await call(app, 'PUT', `${PATH}/${uid}`, { body: { ...portal, clientSecret: undefined } });
    expect(withoutSecret.status).toBe(409);
    expect((await call(app, 'PUT', `${PATH}/${uid}`, { body: portal })).status).toBe(200);
    expect(await authenticates(app, 'portal', 'portal secret')).toBe(true);
    expect(
      (await call(app, 'PUT', `${PATH}/${uid}`, { body: { ...portal, scopes: 'openid,email,client.x' } })).status,
    ).toBe(409);
    expect((await call(app, 'PUT', `${PATH}/nope`, { body: portal })).status).toBe(404);
  });

  it('loses no update to concurrent PUTs: a PUT without name never brings back a name replaced meanwhile', async () => {
    const app = await setup();
    const uid = await create(app);
    const { name: _name, ...nameless } = portal;
    for (let round = 0; round < 5; round++) {
      const name = `Portal ${round}`;
      const answers = await Promise.all([
        call(app, 'PUT', `${PATH}/${uid}`, { body: { ...portal, name } }),
        call(app, 'PUT', `${PATH}/${uid}`, { body: { ...nameless, scopes: `openid,profile` } }),
        call(app, 'PUT', `${PATH}/${uid}`, { body: { ...nameless, scopes: `openid` } }),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect((await call(app, 'GET', `${PATH}/${uid}?fields=name`)).body).toEqual({ name });
    }
  });

  it('deletes the client and its Secret', async () => {
    const app = await setup();
    const uid = await create(app);
    const stored = (await app.cluster.list<OAuth2Client & KubeObject>(oauth2ClientKind, { namespace: 'default' }))
      .items;
    const secretName = stored[0]!.spec.clientSecretRef!.name;
    expect(await app.cluster.get(secretKind, secretName, 'default')).toBeDefined();
    const deleted = await call(app, 'DELETE', `${PATH}/${uid}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ response: { uid } });
    expect((await call(app, 'GET', `${PATH}/${uid}`)).status).toBe(404);
    expect(await app.cluster.get(secretKind, secretName, 'default')).toBeUndefined();
    expect(await authenticates(app, 'portal', 'portal secret')).toBe(false);
    expect((await call(app, 'DELETE', `${PATH}/${uid}`)).status).toBe(404);
  });
});

describe('a client created through the API', () => {
  it('completes the authorization code flow with S256 PKCE in openid-client', async () => {
    const app = await setup();
    await app.addUser('ada', 'correct horse', { email: 'ada@example.org' });
    await create(app);
    const config = await client.discovery(new URL(app.url), 'portal', 'portal secret', client.ClientSecretBasic(), {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const callback = await authorize(new Browser(app.url), url.href, { username: 'ada', password: 'correct horse' });
    const tokens = await client.authorizationCodeGrant(config, new URL(callback.location!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    });
    expect(tokens.claims()).toMatchObject({ sub: 'ada', aud: 'portal', email: 'ada@example.org' });
  });

  it('is described in the OpenAPI document', async () => {
    const app = await setup();
    const doc = (await app.app.inject({ url: '/openapi.json' })).json<{ paths: Record<string, object> }>();
    expect(Object.keys(doc.paths[PATH]!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths[`${PATH}/{uid}`]!).sort()).toEqual(['delete', 'get', 'put']);
  });
});
