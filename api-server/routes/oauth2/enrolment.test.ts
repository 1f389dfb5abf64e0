/**
 * Device enrolment and dynamic client registration (spec 2 "Enrolment flow"), driven end to end with a real,
 * strict client (oauth4webapi) that makes its own key pair: the IAT at the deep link, the registration, the code
 * flow with PKCE and no consent, private_key_jwt, refresh-token rotation; and every refusal around it.
 */
import { generateKeyPairSync } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { tokenHash } from '../../../core/auth/digest.ts';
import { configMapKind } from '../../../core/cluster/builtin-kinds.ts';
import type { KubeObject } from '../../../core/cluster/objects.ts';
import { initialAccessTokenKind } from '../../../core/resources/initial-access-token/schema.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../../core/resources/oauth2-client/schema.ts';
import { authorize, Browser, signIn, startAuthApp, type AuthApp } from '../../../test/support/auth-app.ts';
import { NAMESPACE } from '../../../test/support/auth-context.ts';

const DEEP_LINK = 'stratus://oauth';
const insecure = { [oauth.allowInsecureRequests]: true };
const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

async function enrolmentApp(config = '') {
  const app = await startAuthApp({ config });
  await app.addUser('ada', 'correct horse', { groups: ['field-workers'] });
  await app.addUser('bob', 'battery staple');
  return app;
}

async function setSystemSettings(app: AuthApp, data: Record<string, string>) {
  await app.cluster.create<KubeObject>(configMapKind, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'stratus-system-settings', namespace: NAMESPACE },
    data,
  } as KubeObject);
}

/** GET /api/auth/enrollDevice as a script would, with the user's password. */
function enrol(app: AuthApp, query: Record<string, string>, auth = basic('ada', 'correct horse')) {
  return fetch(`${app.url}/api/auth/enrollDevice?${new URLSearchParams(query)}`, {
    headers: { authorization: auth, accept: 'application/json' },
    redirect: 'manual',
  });
}

async function initialAccessToken(app: AuthApp, redirectUri = DEEP_LINK): Promise<string> {
  const response = await enrol(app, { redirectUri, state: 'n-1' });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  return location.searchParams.get('iat')!;
}

async function devicePublicJwk() {
  const { privateKey, publicKey } = await oauth.generateKeyPair('ES256');
  const jwk = { ...(await crypto.subtle.exportKey('jwk', publicKey)), kid: 'phone-1' } as oauth.JWK;
  return { privateKey, jwk };
}

function register(app: AuthApp, iat: string | undefined, body: unknown) {
  return fetch(`${app.url}/connect/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(iat ? { authorization: `Bearer ${iat}` } : {}) },
    body: JSON.stringify(body),
  });
}

async function dynamicClients(app: AuthApp) {
  const { items } = await app.cluster.list<OAuth2Client & KubeObject>(oauth2ClientKind, { namespace: NAMESPACE });
  return items.filter((c) => c.metadata.labels?.['climate.stratus.dev/registration'] === 'dynamic');
}

describe('the enrolment flow with a device that makes its own key pair (oauth4webapi)', () => {
  it('registers the device, signs the user in without consent, and rotates refresh tokens with the DCR lifetime', async () => {
    const app = await enrolmentApp('oauth2.server.dcr.refresh-token-ttl = 7200');
    const enrolled = await enrol(app, { redirectUri: DEEP_LINK, state: 'nonce-42' });
    expect(enrolled.status).toBe(302);
    const deepLink = new URL(enrolled.headers.get('location')!);
    expect(`${deepLink.protocol}//${deepLink.host}`).toBe(DEEP_LINK);
    expect(deepLink.searchParams.get('state')).toBe('nonce-42');
    const iat = deepLink.searchParams.get('iat')!;

    const issuer = new URL(app.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    expect(as.registration_endpoint).toBe(`${app.url}/connect/register`);
    const { privateKey, jwk } = await devicePublicJwk();
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'Field phone',
          redirect_uris: [DEEP_LINK],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [jwk] },
          // Not honoured (spec 2): the server assigns its scopes.
          scope: 'openid email client.create',
        },
        { initialAccessToken: iat, ...insecure },
      ),
    );
    expect(registered).toMatchObject({
      client_name: 'Field phone',
      redirect_uris: [DEEP_LINK],
      token_endpoint_auth_method: 'private_key_jwt',
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid profile username',
    });
    const stored = (await dynamicClients(app))[0]!;
    expect(stored.spec).toMatchObject({
      clientId: registered.client_id,
      clientAuthenticationMethods: ['private_key_jwt'],
      scopes: ['openid', 'profile', 'username'],
      clientSettings: { requireProofKey: true, requireAuthorizationConsent: false },
      tokenSettings: {
        'settings.token.reuse-refresh-tokens': false,
        'settings.token.refresh-token-time-to-live': 7200,
      },
    });
    expect(stored.metadata.annotations?.['climate.stratus.dev/enrolled-by']).toBe('ada');

    const device: oauth.Client = { client_id: registered.client_id };
    const auth = oauth.PrivateKeyJwt({ key: privateKey, kid: 'phone-1' });
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: registered.client_id,
      redirect_uri: DEEP_LINK,
      response_type: 'code',
      scope: 'openid profile username',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 's-1',
    }).toString();
    const browser = new Browser(app.url);
    const callback = await authorize(browser, url.href, { username: 'ada', password: 'correct horse' });
    // No consent page: the login led straight to the deep link.
    expect(callback.location).toMatch(/^stratus:\/\/oauth\?code=/);
    const params = oauth.validateAuthResponse(as, device, new URL(callback.location!), 's-1');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      device,
      await oauth.authorizationCodeGrantRequest(as, device, auth, params, DEEP_LINK, verifier, insecure),
    );
    // Refresh tokens are opaque: their lifetime is what introspection tells the device.
    const claims = async (token: string) =>
      (await oauth.processIntrospectionResponse(
        as,
        device,
        await oauth.introspectionRequest(as, device, auth, token, insecure),
      )) as unknown as { active: boolean; iat: number; exp: number };
    const first = await claims(tokens.refresh_token!);
    expect(first.active).toBe(true);
    expect(first.exp - first.iat).toBe(7200);

    const rotated = await oauth.processRefreshTokenResponse(
      as,
      device,
      await oauth.refreshTokenGrantRequest(as, device, auth, tokens.refresh_token!, insecure),
    );
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    const second = await claims(rotated.refresh_token!);
    expect(second.exp - second.iat).toBe(7200);
    const me = await fetch(`${app.url}/me`, { headers: { authorization: `Bearer ${rotated.access_token}` } });
    expect(await me.json()).toMatchObject({ user_id: 'ada' });

    // The superseded refresh token is refused, and the IAT cannot register a second client.
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        device,
        await oauth.refreshTokenGrantRequest(as, device, auth, tokens.refresh_token!, insecure),
      ),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    const replay = await register(app, iat, { redirect_uris: [DEEP_LINK], jwks: { keys: [jwk] } });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error: 'invalid_token' });
    expect(replay.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    expect(await dynamicClients(app)).toHaveLength(1);
  });

  it('stores the IAT by its hash only, and an IAT is no API credential', async () => {
    const app = await enrolmentApp();
    const iat = await initialAccessToken(app);
    const { items } = await app.cluster.list<KubeObject>(initialAccessTokenKind, { namespace: NAMESPACE });
    expect(items).toHaveLength(1);
    const record = JSON.stringify(items[0]);
    expect(record).not.toContain(iat);
    expect(record).not.toContain(iat.split('.')[2]!);
    expect(items[0]!.spec).toMatchObject({ hash: tokenHash(iat), principalName: 'ada', redirectUri: DEEP_LINK });
    const asBearer = await fetch(`${app.url}/me`, { headers: { authorization: `Bearer ${iat}` } });
    expect(asBearer.status).toBe(401);
  });

  it('sends a browser without a session to the login page and back, then to the deep link', async () => {
    const app = await enrolmentApp();
    const browser = new Browser(app.url);
    const target = `/api/auth/enrollDevice?${new URLSearchParams({ redirectUri: DEEP_LINK, state: 'b' })}`;
    const first = await browser.get(target, { accept: 'text/html' });
    expect(first.status).toBe(302);
    const login = new URL(first.location!, app.url);
    expect(login.pathname).toBe('/login');
    expect(login.searchParams.get('return_to')).toBe(target);
    const signedIn = await signIn(browser, 'ada', 'correct horse', target);
    expect(signedIn.location).toBe(target);
    const back = await browser.get(target, { accept: 'text/html' });
    expect(back.status).toBe(302);
    expect(back.location).toMatch(/^stratus:\/\/oauth\?iat=.+&state=b$/);
  });
});

describe('device enrolment refusals', () => {
  it('asks an anonymous script for credentials, and refuses a user outside the allowed groups', async () => {
    const app = await enrolmentApp();
    const anonymous = await fetch(`${app.url}/api/auth/enrollDevice?redirectUri=${DEEP_LINK}&state=x`, {
      redirect: 'manual',
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await enrol(app, { redirectUri: DEEP_LINK, state: 'x' }, basic('bob', 'battery staple'))).status).toBe(302);
    await setSystemSettings(app, { deviceEnrollmentAllowedUserGroups: 'field-workers, supervisors' });
    const outsider = await enrol(app, { redirectUri: DEEP_LINK, state: 'x' }, basic('bob', 'battery staple'));
    expect(outsider.status).toBe(403);
    expect((await enrol(app, { redirectUri: DEEP_LINK, state: 'x' })).status).toBe(302);
  });

  it('refuses a redirect URI off the allow-list and mints nothing; globs of the allow-list match', async () => {
    const app = await enrolmentApp();
    for (const redirectUri of ['stratus://oauth2', 'https://evil.example/cb', 'stratus://oauth/../x']) {
      const response = await enrol(app, { redirectUri, state: 'x' });
      expect(response.status, redirectUri).toBe(400);
      expect(response.headers.get('location')).toBeNull();
    }
    expect((await enrol(app, { redirectUri: DEEP_LINK })).status).toBe(422);
    const { items } = await app.cluster.list<KubeObject>(initialAccessTokenKind, { namespace: NAMESPACE });
    expect(items).toHaveLength(0);
    await setSystemSettings(app, { deviceEnrollmentRedirectAllowlist: 'org.example.app://callback/*' });
    expect((await enrol(app, { redirectUri: 'org.example.app://callback/phone', state: 'x' })).status).toBe(302);
    expect((await enrol(app, { redirectUri: DEEP_LINK, state: 'x' })).status).toBe(400);
  });
});

describe('a device registered under a glob of the allow-list', () => {
  it('uses its registered deep link at the authorization endpoint, which a managed client could not', async () => {
    const app = await enrolmentApp();
    await setSystemSettings(app, { deviceEnrollmentRedirectAllowlist: 'org.example.app://callback/*' });
    const deepLink = 'org.example.app://callback/phone-7';
    const { jwk } = await devicePublicJwk();
    const response = await register(app, await initialAccessToken(app, deepLink), {
      redirect_uris: [deepLink],
      jwks: { keys: [jwk] },
    });
    expect(response.status).toBe(201);
    const { client_id } = (await response.json()) as { client_id: string };
    await app.addClient({ clientId: 'managed', clientAuthenticationMethods: ['none'], redirectUris: [deepLink] });
    const query = (clientId: string) =>
      `/oauth2/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: deepLink,
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGrSkYtHJs',
        code_challenge_method: 'S256',
      })}`;
    const user = { username: 'ada', password: 'correct horse' };
    const device = await authorize(new Browser(app.url), query(client_id), user);
    expect(device.location).toMatch(/^org\.example\.app:\/\/callback\/phone-7\?code=/);
    const managed = await authorize(new Browser(app.url), query('managed'), user);
    expect(managed.status).toBe(400);
    expect(managed.location).toBeUndefined();
  });
});

describe('registration refusals', () => {
  it('refuses metadata spec 2 does not allow, without spending the IAT', async () => {
    const app = await enrolmentApp();
    const iat = await initialAccessToken(app);
    const { jwk } = await devicePublicJwk();
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
    const privateJwk = await crypto.subtle.exportKey(
      'jwk',
      (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign'])).privateKey,
    );
    const good = { redirect_uris: [DEEP_LINK], jwks: { keys: [jwk] } };
    const cases: [string, unknown, string][] = [
      ['jwks_uri', { ...good, jwks: undefined, jwks_uri: 'https://device.example/jwks' }, 'invalid_client_metadata'],
      ['jwks and jwks_uri', { ...good, jwks_uri: 'https://device.example/jwks' }, 'invalid_client_metadata'],
      ['no jwks', { redirect_uris: [DEEP_LINK] }, 'invalid_client_metadata'],
      ['empty jwks', { ...good, jwks: { keys: [] } }, 'invalid_client_metadata'],
      ['a private key', { ...good, jwks: { keys: [privateJwk] } }, 'invalid_client_metadata'],
      ['a symmetric key', { ...good, jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, 'invalid_client_metadata'],
      ['a 1024-bit RSA key', { ...good, jwks: { keys: [rsa] } }, 'invalid_client_metadata'],
      ['a secret method', { ...good, token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
      ['client_credentials', { ...good, grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
      ['implicit', { ...good, response_types: ['token'] }, 'invalid_client_metadata'],
      ['no redirect URI', { jwks: good.jwks }, 'invalid_redirect_uri'],
      ['a web redirect URI', { ...good, redirect_uris: ['https://evil.example/cb'] }, 'invalid_redirect_uri'],
      ['one character off', { ...good, redirect_uris: ['stratus://oauth/'] }, 'invalid_redirect_uri'],
      ['a fragment', { ...good, redirect_uris: ['stratus://oauth#x'] }, 'invalid_redirect_uri'],
      ['not an object', [good], 'invalid_client_metadata'],
    ];
    for (const [what, body, error] of cases) {
      const response = await register(app, iat, body);
      expect(response.status, what).toBe(400);
      expect(await response.json(), what).toMatchObject({ error });
    }
    expect(await dynamicClients(app)).toHaveLength(0);
    expect((await register(app, iat, good)).status).toBe(201);
  });

  it('refuses a missing, forged, expired or foreign token', async () => {
    const app = await enrolmentApp();
    await app.addClient({ clientId: 'cli', clientAuthenticationMethods: ['none'] });
    const { jwk } = await devicePublicJwk();
    const good = { redirect_uris: [DEEP_LINK], jwks: { keys: [jwk] } };
    expect((await register(app, undefined, good)).status).toBe(401);
    const iat = await initialAccessToken(app);
    const [header, payload] = iat.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'root' })).toString('base64url')}.${iat.split('.')[2]}`;
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'iat+jwt' })).toString('base64url')}.${payload}.`;
    for (const token of [forged, none, 'not-a-jwt']) {
      const response = await register(app, token, good);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: 'invalid_token' });
    }
    await setSystemSettings(app, { deviceEnrollmentIATTtlSeconds: '1' });
    const shortLived = await initialAccessToken(app);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await register(app, shortLived, good)).status).toBe(401);
    expect(await dynamicClients(app)).toHaveLength(0);
    // The original, still live, works once.
    expect((await register(app, iat, good)).status).toBe(201);
  });

  it('lets exactly one of 50 concurrent registrations with one IAT register a client', async () => {
    const app = await enrolmentApp();
    const iat = await initialAccessToken(app);
    const { jwk } = await devicePublicJwk();
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () =>
        register(app, iat, { redirect_uris: [DEEP_LINK], jwks: { keys: [jwk] } }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(49);
    expect(await dynamicClients(app)).toHaveLength(1);
  });
});

describe('the registrar client', () => {
  it('exists once the server starts, and cannot authenticate from outside', async () => {
    const app = await enrolmentApp();
    const registrar = await app.cluster.get<OAuth2Client & KubeObject>(
      oauth2ClientKind,
      'system-dcr-registrar-client',
      NAMESPACE,
    );
    expect(registrar?.spec).toMatchObject({ authorizationGrantTypes: ['client_credentials'] });
    expect(registrar?.spec.clientSecretRef).toBeUndefined();
    const response = await fetch(`${app.url}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic('system-dcr-registrar-client', ''),
      },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(401);
  });
});
