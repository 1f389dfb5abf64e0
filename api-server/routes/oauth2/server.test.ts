/**
 * The authorization server as a whole: its discovery document, its keys (a keystore's, or the ephemeral key that
 * replicas share), the startup rules of spec 2, and two instances over one store serving one client.
 */
import { createVerify, X509Certificate } from 'node:crypto';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/config/index.ts';
import { s256Challenge } from '../../../core/auth/pkce.ts';
import { keystoreDir, opensslPkcs12 } from '../../../test/support/keystores.ts';
import {
  authorize,
  Browser,
  openTestCluster,
  postForm,
  startAuthApp,
  type AuthApp,
} from '../../../test/support/auth-app.ts';
import { build } from '../../test/build.ts';
import { NAMESPACE } from '../../../test/support/auth-context.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { oauth2ClientKind } from '../../../core/resources/oauth2-client/schema.ts';
import { userKind } from '../../../core/resources/user/schema.ts';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const VERIFIER = 'v'.repeat(43);

async function tokensFrom(app: AuthApp, browserBase = app.url) {
  const query = new URLSearchParams({
    client_id: 'cli',
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid username',
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
  });
  const callback = await authorize(new Browser(browserBase), `/oauth2/authorize?${query}`, {
    username: 'ada',
    password: 'pw',
  });
  const code = new URL(callback.location!).searchParams.get('code')!;
  return tokenCall(browserBase, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: VERIFIER,
  });
}

const tokenCall = (base: string, form: Record<string, string>, path = '/oauth2/token') => postForm(base, path, form);

describe('discovery', () => {
  it('derives the issuer and every endpoint from server.base.url, with or without its trailing slash', async () => {
    for (const configured of ['https://climate.example.org/stratus', 'https://climate.example.org/stratus/']) {
      const { app } = await build(`oauth2.server.enabled = on\nserver.base.url = ${configured}`);
      const document = (await app.inject({ url: '/.well-known/openid-configuration' })).json();
      expect(document).toMatchObject({
        issuer: 'https://climate.example.org/stratus',
        authorization_endpoint: 'https://climate.example.org/stratus/oauth2/authorize',
        token_endpoint: 'https://climate.example.org/stratus/oauth2/token',
        jwks_uri: 'https://climate.example.org/stratus/oauth2/jwks',
        userinfo_endpoint: 'https://climate.example.org/stratus/oauth2/userinfo',
        revocation_endpoint: 'https://climate.example.org/stratus/oauth2/revoke',
        introspection_endpoint: 'https://climate.example.org/stratus/oauth2/introspect',
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        id_token_signing_alg_values_supported: ['RS256'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        token_endpoint_auth_methods_supported: [
          'client_secret_basic',
          'client_secret_post',
          'client_secret_jwt',
          'private_key_jwt',
          'none',
        ],
        token_endpoint_auth_signing_alg_values_supported: expect.arrayContaining(['ES256', 'RS256', 'HS256']),
        scopes_supported: ['openid', 'profile', 'username', 'email'],
      });
      // Not inferred from the request: another Host changes nothing.
      const other = (
        await app.inject({ url: '/.well-known/openid-configuration', headers: { host: 'evil.example.org' } })
      ).json();
      expect(other.issuer).toBe('https://climate.example.org/stratus');
    }
  });

  it('describes the OAuth2 endpoints in the OpenAPI document, with resolvable components, and hides the HTML forms', async () => {
    const { app } = await build('oauth2.server.enabled = on\nserver.base.url = https://climate.example.org');
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    for (const [path, method] of [
      ['/oauth2/authorize', 'get'],
      ['/oauth2/token', 'post'],
      ['/oauth2/revoke', 'post'],
      ['/oauth2/introspect', 'post'],
      ['/oauth2/userinfo', 'get'],
      ['/oauth2/jwks', 'get'],
      ['/.well-known/openid-configuration', 'get'],
    ]) {
      expect(doc.paths[path!]?.[method!], `${method} ${path}`).toBeDefined();
    }
    expect(Object.keys(doc.paths['/oauth2/token'].post.requestBody.content)).toEqual([
      'application/x-www-form-urlencoded',
    ]);
    for (const hidden of ['/login', '/logout', '/oauth2/consent']) expect(doc.paths[hidden]).toBeUndefined();
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.filter((r) => !doc.components.schemas[r])).toEqual([]);
  });

  it('sends the browser to the login page under the base URL’s path', async () => {
    const { app } = await build('oauth2.server.enabled = on\nserver.base.url = https://climate.example.org/stratus');
    const login = await app.inject({ url: '/login?return_to=/stratus/x' });
    expect(login.body).toContain('action="/stratus/login"');
  });
});

describe('signing keys', () => {
  it('signs with the key of a PKCS#12 keystore and publishes it at /oauth2/jwks', async () => {
    const made = await opensslPkcs12(await keystoreDir(), { alias: 'signer', password: 'store pw' });
    const app = await startAuthApp({
      config: [
        `oauth2.server.jwt.keystore.path = ${made.path}`,
        'oauth2.server.jwt.keystore.alias = signer',
        'oauth2.server.jwt.keystore.password = store pw',
        'oauth2.server.jwt.keystore.generate-if-missing = false',
      ].join('\n'),
    });
    await app.addUser('ada', 'pw');
    await app.addClient({ clientId: 'cli' });
    const certificateKey = new X509Certificate(made.certificatePem).publicKey;
    const jwks = (await (await fetch(`${app.url}/oauth2/jwks`)).json()) as { keys: { n: string; kid: string }[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]!.n).toBe(certificateKey.export({ format: 'jwk' }).n);
    const { body } = await tokensFrom(app);
    const [header, payload, signature] = body.access_token!.split('.');
    expect(decodeProtectedHeader(body.access_token!)).toMatchObject({
      alg: 'RS256',
      kid: jwks.keys[0]!.kid,
      typ: 'at+jwt',
    });
    const verified = createVerify('RSA-SHA256')
      .update(`${header}.${payload}`)
      .verify(certificateKey, Buffer.from(signature!, 'base64url'));
    expect(verified).toBe(true);
  });

  it.each([
    ['a wrong keystore password', ['password = wrong'], 'the keystore password is wrong'],
    ['a wrong alias', ['password = store pw', 'alias = other'], 'no entry with alias "other" (aliases: signer)'],
  ])('stops startup on %s', async (_name, lines, message) => {
    const made = await opensslPkcs12(await keystoreDir(), { alias: 'signer', password: 'store pw' });
    const config = [`path = ${made.path}`, 'alias = signer', ...lines].map((l) => `oauth2.server.jwt.keystore.${l}`);
    const start = startAuthApp({ config: config.join('\n') });
    await expect(start).rejects.toThrow(ConfigError);
    await expect(start).rejects.toThrow(message);
  });

  it('stops startup without a keystore when no key may be generated', async () => {
    await expect(startAuthApp({ config: 'oauth2.server.jwt.keystore.generate-if-missing = false' })).rejects.toThrow(
      /needs a signing key/,
    );
  });
});

describe('a read-only instance', () => {
  it('signs users in and issues tokens, and still refuses the writes of data', async () => {
    const app = await startAuthApp({ config: 'read_only = on' });
    await app.addUser('ada', 'pw', { authorities: ['ALL'] });
    await app.addClient({ clientId: 'cli', clientAuthenticationMethods: ['none'], redirectUris: [REDIRECT_URI] });
    const tokens = await tokensFrom(app);
    expect(tokens.status).toBe(200);
    const write = await fetch(`${app.url}/ingestions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.body.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(write.status).toBe(403);
    expect(await write.json()).toMatchObject({ code: 'PermissionsInsufficient' });
  });
});

describe('bearer tokens used again', () => {
  it('refuses a token it accepted a moment ago once it is revoked, its user disabled or its client removed', async () => {
    const app = await startAuthApp();
    await app.addUser('ada', 'pw');
    await app.addClient({ clientId: 'cli', clientAuthenticationMethods: ['none'], redirectUris: [REDIRECT_URI] });
    const me = (token: string) => fetch(`${app.url}/me`, { headers: { authorization: `Bearer ${token}` } });
    const refused = (token: string) => eventually(async () => ((await me(token)).status === 401 ? true : undefined));

    const revoked = (await tokensFrom(app)).body;
    expect((await me(revoked.access_token!)).status).toBe(200);
    expect((await me(revoked.access_token!)).status).toBe(200);
    expect((await tokenCall(app.url, { token: revoked.refresh_token! }, '/oauth2/revoke')).status).toBe(200);
    // Revoked through this instance: refused at once.
    expect((await me(revoked.access_token!)).status).toBe(401);

    // Changed by another writer (kubectl, another replica): refused once the watch brings the change.
    const disabled = (await tokensFrom(app)).body.access_token!;
    expect((await me(disabled)).status).toBe(200);
    await app.cluster.patch(userKind, 'ada', { type: 'merge', body: { spec: { disabled: true } } }, NAMESPACE);
    await refused(disabled);
    await app.cluster.patch(userKind, 'ada', { type: 'merge', body: { spec: { disabled: false } } }, NAMESPACE);
    expect((await me(disabled)).status).toBe(200);

    const orphaned = (await tokensFrom(app)).body.access_token!;
    expect((await me(orphaned)).status).toBe(200);
    await app.cluster.delete(oauth2ClientKind, 'cli', NAMESPACE);
    await refused(orphaned);
  });
});

describe('two instances over one store', () => {
  it('sign with the same ephemeral key, and each accepts, refreshes and revokes what the other issued', async () => {
    const cluster = await openTestCluster();
    // Replicas behind one public URL: one issuer.
    const [first, second] = await Promise.all([
      startAuthApp({ cluster, baseUrl: 'https://stratus.example.org' }),
      startAuthApp({ cluster, baseUrl: 'https://stratus.example.org' }),
    ]);
    await first.addUser('ada', 'pw');
    await first.addClient({ clientId: 'cli', tokenSettings: { 'settings.token.reuse-refresh-tokens': false } });
    const [a, b] = await Promise.all(
      [first, second].map(async (app) => (await fetch(`${app.url}/oauth2/jwks`)).json()),
    );
    expect(a).toEqual(b);

    const issued = (await tokensFrom(first)).body;
    const key = await importJWK((a as { keys: Record<string, unknown>[] }).keys[0]!, 'RS256');
    await jwtVerify(issued.access_token!, key, { issuer: 'https://stratus.example.org' });
    const me = await fetch(`${second.url}/me`, { headers: { authorization: `Bearer ${issued.access_token}` } });
    expect(((await me.json()) as { user_id: string }).user_id).toBe('ada');

    const refreshed = await tokenCall(second.url, {
      grant_type: 'refresh_token',
      refresh_token: issued.refresh_token!,
    });
    expect(refreshed.status).toBe(200);
    expect(
      (await tokenCall(first.url, { token: refreshed.body.access_token! }, '/oauth2/introspect')).body.active,
    ).toBe(true);
    expect((await tokenCall(first.url, { token: refreshed.body.refresh_token! }, '/oauth2/revoke')).status).toBe(200);
    expect((await tokenCall(second.url, { token: refreshed.body.access_token! }, '/oauth2/introspect')).body).toEqual({
      active: false,
    });
    const after = await fetch(`${second.url}/me`, {
      headers: { authorization: `Bearer ${refreshed.body.access_token}` },
    });
    expect(after.status).toBe(401);
  });
});
