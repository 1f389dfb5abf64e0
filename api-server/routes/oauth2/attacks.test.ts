/**
 * Attacks on the authorization server, each refused: forged and stale tokens, a replayed code (whose tokens are
 * then revoked), concurrent replays of one refresh token, PKCE downgrades (a client stored without PKCE kept as
 * stored, but no further), redirect URIs that differ by a character or use a scheme off the allow-list, open
 * redirects, and cross-site forms.
 */
import { createPublicKey } from 'node:crypto';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { s256Challenge } from '../../../core/auth/pkce.ts';
import { configMapKind } from '../../../core/cluster/builtin-kinds.ts';
import type { KubeObject } from '../../../core/cluster/objects.ts';
import { oauth2AuthorizationKind } from '../../../core/resources/oauth2-authorization/schema.ts';
import { oauth2ClientKind } from '../../../core/resources/oauth2-client/schema.ts';
import {
  authorize,
  Browser,
  formFields,
  postForm,
  signIn,
  startAuthApp,
  type AuthApp,
} from '../../../test/support/auth-app.ts';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const VERIFIER = 'v'.repeat(43);

async function setup(clientSpec: Record<string, unknown> = {}) {
  const app = await startAuthApp();
  await app.addUser('ada', 'pw', { email: 'ada@example.org' });
  await app.addClient({ clientId: 'cli', ...clientSpec });
  return app;
}

function authorizationUrl(params: Record<string, string | undefined>): string {
  const defined = Object.entries({
    client_id: 'cli',
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid username',
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
    state: 'st',
    ...params,
  }).filter((e): e is [string, string] => e[1] !== undefined);
  return `/oauth2/authorize?${new URLSearchParams(defined)}`;
}

async function code(app: AuthApp, params: Record<string, string | undefined> = {}): Promise<string> {
  const callback = await authorize(new Browser(app.url), authorizationUrl(params), { username: 'ada', password: 'pw' });
  return new URL(callback.location!).searchParams.get('code')!;
}

const token = (app: AuthApp, form: Record<string, string>) => postForm(app.url, '/oauth2/token', form);

const exchange = (app: AuthApp, c: string, extra: Record<string, string> = {}) =>
  token(app, {
    grant_type: 'authorization_code',
    code: c,
    redirect_uri: REDIRECT_URI,
    code_verifier: VERIFIER,
    ...extra,
  });

async function userinfo(app: AuthApp, accessToken: string) {
  const response = await fetch(`${app.url}/oauth2/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body };
}

const introspect = async (app: AuthApp, value: string) =>
  (await postForm(app.url, '/oauth2/introspect', { token: value })).body as unknown as { active: boolean };

describe('forged and stale bearer tokens at the API', () => {
  it.each([
    ['alg none', 'none'],
    ['HS256 signed with the public key', 'hs256'],
    ['another issuer', 'iss'],
    ['an audience that is no client', 'aud'],
    ['an expired token', 'expired'],
  ])('refuses %s with 401 invalid_token and a Bearer challenge', async (_name, attack) => {
    const app = await setup();
    const { access_token } = (await exchange(app, await code(app))).body;
    const claims = decodeJwt(access_token!);
    const keys = app.app.auth!.context.keys;
    const signed = (changes: Record<string, unknown>) =>
      new SignJWT({ ...claims, ...changes })
        .setProtectedHeader({ alg: 'RS256', kid: keys.kid, typ: 'at+jwt' })
        .sign(keys.privateKey);
    const forged =
      attack === 'none'
        ? new UnsecuredJWT(claims).encode()
        : attack === 'hs256'
          ? await new SignJWT(claims)
              .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
              .sign(
                new TextEncoder().encode(
                  String(createPublicKey(keys.privateKey).export({ format: 'pem', type: 'spki' })),
                ),
              )
          : attack === 'iss'
            ? await signed({ iss: 'https://evil.example.org' })
            : attack === 'aud'
              ? await signed({ aud: 'not-a-client' })
              : await signed({ iat: claims.iat! - 3600, nbf: claims.iat! - 3600, exp: claims.iat! - 600 });
    expect((await userinfo(app, access_token!)).status).toBe(200);
    const refused = await userinfo(app, forged);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_token');
    expect(refused.challenge).toMatch(/^Bearer realm="Stratus", error="invalid_token", error_description="/);
  });
});

describe('codes and refresh tokens are single use', () => {
  it('refuses a replayed code and revokes the tokens issued from it', async () => {
    const app = await setup();
    const c = await code(app);
    const first = await exchange(app, c);
    expect(first.status).toBe(200);
    expect((await userinfo(app, first.body.access_token!)).status).toBe(200);
    const replay = await exchange(app, c);
    expect(replay).toEqual({
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description: 'the authorization code was already used; the tokens issued from it are revoked',
      },
    });
    expect((await userinfo(app, first.body.access_token!)).status).toBe(401);
    expect(await introspect(app, first.body.access_token!)).toEqual({ active: false });
    expect(
      (await token(app, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token! })).body.error,
    ).toBe('invalid_grant');
    const [record] = (await app.cluster.list<KubeObject<{ revocation?: { reason: string } }>>(oauth2AuthorizationKind))
      .items;
    expect(record!.spec!.revocation?.reason).toBe('code-replayed');
  });

  it('lets exactly one of 100 concurrent uses of a refresh token succeed, and revokes its family', async () => {
    const app = await setup({ tokenSettings: { 'settings.token.reuse-refresh-tokens': false } });
    const issued = (await exchange(app, await code(app))).body;
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        token(app, { grant_type: 'refresh_token', refresh_token: issued.refresh_token! }),
      ),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(99);
    // The replays revoked the family: the winner's tokens are worthless too.
    const won = winners[0]!.body;
    expect((await token(app, { grant_type: 'refresh_token', refresh_token: won.refresh_token! })).body.error).toBe(
      'invalid_grant',
    );
    expect(await introspect(app, won.access_token!)).toEqual({ active: false });
    expect(await introspect(app, issued.access_token!)).toEqual({ active: false });
  }, 60_000);

  it('refuses a superseded refresh token presented after the rotation, and revokes the family', async () => {
    const app = await setup({ tokenSettings: { 'settings.token.reuse-refresh-tokens': false } });
    const issued = (await exchange(app, await code(app))).body;
    const rotated = await token(app, { grant_type: 'refresh_token', refresh_token: issued.refresh_token! });
    expect(rotated.status).toBe(200);
    expect((await token(app, { grant_type: 'refresh_token', refresh_token: issued.refresh_token! })).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token was already used; the authorization is revoked',
    });
    expect((await token(app, { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token! })).status).toBe(
      400,
    );
  });

  it('refuses a made-up refresh token naming a real authorization without revoking it', async () => {
    const app = await setup({ tokenSettings: { 'settings.token.reuse-refresh-tokens': false } });
    const issued = (await exchange(app, await code(app))).body;
    const [name, secret, mac] = issued.refresh_token!.split('.') as [string, string, string];
    // The authorization's name is no secret (access tokens carry it): forge the rest, or reuse the MAC elsewhere.
    const forgeries = [
      `${name}.${'A'.repeat(43)}.${mac}`,
      `${name}.${secret}.${'A'.repeat(43)}`,
      `${name}.${secret}`,
      `${name}.${secret}.${mac}.x`,
    ];
    for (const forged of forgeries)
      expect((await token(app, { grant_type: 'refresh_token', refresh_token: forged })).body).toEqual({
        error: 'invalid_grant',
        error_description: 'the refresh token is not valid',
      });
    expect(await introspect(app, forgeries[0]!)).toEqual({ active: false });
    // The family lives on: the genuine token is live, still refreshes, and the new access token works.
    expect(await introspect(app, issued.refresh_token!)).toMatchObject({
      active: true,
      token_type: 'refresh_token',
      client_id: 'cli',
      username: 'ada',
    });
    const refreshed = await token(app, { grant_type: 'refresh_token', refresh_token: issued.refresh_token! });
    expect(refreshed.status).toBe(200);
    const me = await fetch(`${app.url}/me`, { headers: { authorization: `Bearer ${refreshed.body.access_token}` } });
    expect(me.status).toBe(200);
  });
});

describe('PKCE is S256 and required', () => {
  it.each([
    ['no code_challenge', { code_challenge: undefined, code_challenge_method: undefined }],
    ['code_challenge_method plain', { code_challenge: VERIFIER, code_challenge_method: 'plain' }],
    ['a challenge without its method (plain by default)', { code_challenge_method: undefined }],
  ])('refuses an authorization request with %s: invalid_grant at the redirect URI', async (_name, params) => {
    const app = await setup();
    const response = await new Browser(app.url).get(authorizationUrl(params));
    expect(response.status).toBe(302);
    const location = new URL(response.location!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      error: 'invalid_grant',
      state: 'st',
      iss: app.url,
    });
    expect(location.searchParams.has('code')).toBe(false);
  });

  it.each([
    ['a missing code_verifier', { code_verifier: '' }],
    ['a wrong code_verifier', { code_verifier: 'w'.repeat(43) }],
    ['the challenge as verifier', { code_verifier: s256Challenge(VERIFIER) }],
  ])('refuses a code exchange with %s', async (_name, extra) => {
    const app = await setup();
    const c = await code(app);
    const refused = await exchange(app, c, extra);
    expect(refused).toEqual({
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description: 'code_verifier is missing or does not match the code_challenge',
      },
    });
    // The right verifier still works: a failed attempt does not burn the code for its owner.
    expect((await exchange(app, c)).status).toBe(200);
  });

  describe('a client stored without PKCE keeps its stored setting (spec 2)', () => {
    const withoutPkce = { clientSettings: { requireProofKey: false, requireAuthorizationConsent: false } };
    const noChallenge = { code_challenge: undefined, code_challenge_method: undefined };
    const exchangeWithout = (app: AuthApp, c: string) =>
      token(app, { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT_URI, client_id: 'cli' });

    it('gets a code without a challenge and exchanges it without a verifier', async () => {
      const app = await setup(withoutPkce);
      const exchanged = await exchangeWithout(app, await code(app, noChallenge));
      expect(exchanged.status).toBe(200);
      expect(exchanged.body).toMatchObject({ token_type: 'Bearer' });
    });

    it('refuses a verifier for a code issued without a challenge, and holds a challenge it sends to S256', async () => {
      const app = await setup(withoutPkce);
      expect(await exchange(app, await code(app, noChallenge))).toEqual({
        status: 400,
        body: {
          error: 'invalid_grant',
          error_description: 'the authorization code was issued without a code_challenge',
        },
      });
      expect((await exchange(app, await code(app), { code_verifier: 'w'.repeat(43) })).status).toBe(400);
      expect((await exchange(app, await code(app))).status).toBe(200);
      const plain = await new Browser(app.url).get(authorizationUrl({ code_challenge_method: 'plain' }));
      expect(new URL(plain.location!).searchParams.get('error')).toBe('invalid_grant');
    });

    it('refuses a code issued without a challenge once the client requires PKCE', async () => {
      const app = await setup(withoutPkce);
      const c = await code(app, noChallenge);
      await app.cluster.patch(
        oauth2ClientKind,
        'cli',
        {
          type: 'merge',
          body: { spec: { clientSettings: { requireProofKey: true, requireAuthorizationConsent: false } } },
        },
        'default',
      );
      expect((await exchangeWithout(app, c)).body).toMatchObject({ error: 'invalid_grant' });
    });
  });
});

describe('redirect URIs', () => {
  it.each([
    ['a different last character', 'http://127.0.0.1:8765/callbacK'],
    ['a trailing slash', `${REDIRECT_URI}/`],
    ['another port', 'http://127.0.0.1:8766/callback'],
    ['an added query', `${REDIRECT_URI}?next=x`],
    ['another host', 'https://evil.example.org/callback'],
  ])('shows an error page, redirecting nowhere, for a redirect URI with %s', async (_name, redirectUri) => {
    const app = await setup();
    const browser = new Browser(app.url);
    await signIn(browser, 'ada', 'pw');
    const response = await browser.get(authorizationUrl({ redirect_uri: redirectUri }));
    expect(response.status).toBe(400);
    expect(response.location).toBeUndefined();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.body).toContain('The redirect_uri is not registered for this client.');
  });

  it('refuses a code exchanged with a redirect URI one character off', async () => {
    const app = await setup();
    const refused = await exchange(app, await code(app), { redirect_uri: 'http://127.0.0.1:8765/callbacK' });
    expect(refused.body).toEqual({
      error: 'invalid_grant',
      error_description: 'redirect_uri differs from the one of the authorization request',
    });
  });

  it('refuses a client with a custom scheme off the allow-list, and takes it once the scheme is on', async () => {
    const app = await setup({ redirectUris: ['stratus://oauth', 'myapp://cb'] });
    const browser = new Browser(app.url);
    await signIn(browser, 'ada', 'pw');
    // myapp://cb breaks the client rules: the client is unusable, with any of its redirect URIs.
    const refused = await browser.get(authorizationUrl({ redirect_uri: 'stratus://oauth' }));
    expect(refused.status).toBe(400);
    expect(refused.location).toBeUndefined();
    expect(refused.body).toContain('breaks the client rules');
    // The allow-list is a system setting, read on every request.
    await app.cluster.create<KubeObject>(configMapKind, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stratus-system-settings', namespace: 'default' },
      data: { deviceEnrollmentRedirectAllowlist: 'stratus://oauth,myapp://cb' },
    });
    expect((await browser.get(authorizationUrl({ redirect_uri: 'myapp://cb' }))).location).toMatch(
      /^myapp:\/\/cb\?code=/,
    );
    expect((await browser.get(authorizationUrl({ redirect_uri: 'stratus://oauth' }))).location).toMatch(
      /^stratus:\/\/oauth\?code=/,
    );
  });
});

describe('open redirects', () => {
  it('redirects nowhere for an unknown client, whatever redirect URI it names', async () => {
    const app = await setup();
    const response = await new Browser(app.url).get(
      authorizationUrl({ client_id: 'nobody', redirect_uri: 'https://evil.example.org/' }),
    );
    expect(response.status).toBe(400);
    expect(response.location).toBeUndefined();
  });

  it.each([
    ['an absolute URL', 'https://evil.example.org/'],
    ['a scheme-relative URL', '//evil.example.org/'],
    ['a backslash trick', '/\\evil.example.org/'],
    ['a javascript: URL', 'javascript:alert(1)'],
  ])('sends the browser home after sign-in when return_to is %s', async (_name, returnTo) => {
    const app = await setup();
    const signedIn = await signIn(new Browser(app.url), 'ada', 'pw', returnTo);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/');
  });
});

describe('CSRF', () => {
  it('refuses a login form posted without the CSRF cookie, or with another token, and starts no session', async () => {
    const app = await setup();
    const page = await new Browser(app.url).get('/login');
    const fields = formFields(page.body);
    const attacker = new Browser(app.url);
    const crossSite = await attacker.post('/login', { ...fields, username: 'ada', password: 'pw' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body).toContain('CSRF');
    expect(attacker.setCookies.filter((c) => c.startsWith('stratus_session='))).toEqual([]);
    const victim = new Browser(app.url);
    await victim.get('/login');
    const forged = await victim.post('/login', { ...fields, csrf: 'x'.repeat(43), username: 'ada', password: 'pw' });
    expect(forged.status).toBe(403);
    expect(victim.cookies.has('stratus_session')).toBe(false);
  });

  it('refuses a login form whose token equals a pre-session cookie the sender made up', async () => {
    const app = await setup();
    for (const value of ['x', 'a'.repeat(43)]) {
      const forger = new Browser(app.url);
      forger.cookies.set('stratus_csrf', value);
      const forged = await forger.post('/login', { csrf: value, return_to: '/', username: 'ada', password: 'pw' });
      expect(forged.status, value).toBe(403);
      expect(forger.cookies.has('stratus_session')).toBe(false);
    }
  });

  it('refuses a login form with the token of another pre-session, and signs in with its own', async () => {
    const app = await setup();
    const other = new Browser(app.url);
    const otherFields = formFields((await other.get('/login')).body);
    const browser = new Browser(app.url);
    const fields = formFields((await browser.get('/login')).body);
    expect(browser.cookies.get('stratus_csrf')).not.toBe(other.cookies.get('stratus_csrf'));
    const crossed = await browser.post('/login', {
      ...fields,
      csrf: otherFields.csrf!,
      username: 'ada',
      password: 'pw',
    });
    expect(crossed.status).toBe(403);
    expect(browser.cookies.has('stratus_session')).toBe(false);
    const own = await browser.post('/login', { ...fields, username: 'ada', password: 'pw' });
    expect(own.status).toBe(303);
    expect(browser.cookies.has('stratus_session')).toBe(true);
  });

  it('refuses a consent form without the session’s CSRF token, and issues no code', async () => {
    const app = await setup({ clientSettings: { requireProofKey: true, requireAuthorizationConsent: true } });
    const browser = new Browser(app.url);
    await signIn(browser, 'ada', 'pw');
    const consent = await browser.get(authorizationUrl({}));
    expect(consent.body).toContain('name="decision"');
    const fields = formFields(consent.body);
    const forged = await browser.post('/oauth2/consent', { ...fields, csrf: 'x'.repeat(43), decision: 'approve' });
    expect(forged.status).toBe(403);
    expect(forged.location).toBeUndefined();
    // A cross-site post carries no session cookie at all (SameSite=Lax): refused the same.
    const crossSite = await new Browser(app.url).post('/oauth2/consent', { ...fields, decision: 'approve' });
    expect(crossSite.status).toBe(403);
    expect((await app.cluster.list(oauth2AuthorizationKind)).items).toEqual([]);
    const approved = await browser.post('/oauth2/consent', { ...fields, decision: 'approve' });
    expect(approved.location).toMatch(/^http:\/\/127\.0\.0\.1:8765\/callback\?code=/);
  });
});
