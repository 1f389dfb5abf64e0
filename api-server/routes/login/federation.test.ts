import { describe, expect, it } from 'vitest';
import { ENDPOINT_PATHS } from '../../../core/auth/endpoints.ts';
import { sessionKind } from '../../../core/resources/session/schema.ts';
import { userKind, type User } from '../../../core/resources/user/schema.ts';
import { sessionCsrfToken } from '../../plugins/app/authentication/csrf.ts';
import { Browser, formFields, startAuthApp, type AuthApp } from '../../../test/support/auth-app.ts';
import { keystoreDir, opensslPkcs12 } from '../../../test/support/keystores.ts';
import { createOidcPeer, signInThroughPeer, type OidcPeer } from '../../../test/support/oidc-peer.ts';

/**
 * The relying party end to end: `oidc-provider` is the external identity provider (its own login and
 * consent pages, driven over HTTP like a browser), Stratus signs users in through the login page's buttons.
 */
const PROVIDERS = {
  basic: { clientId: 'rp-basic', method: 'client_secret_basic' },
  post: { clientId: 'rp-post', method: 'client_secret_post' },
  jwt: { clientId: 'rp-jwt', method: 'private_key_jwt' },
  pkce: { clientId: 'rp-pkce', method: 'client_secret_basic' },
} as const;
type Key = keyof typeof PROVIDERS;

interface Setup {
  app: AuthApp;
  peer: OidcPeer;
}

async function setup(extra = '', options: { authorizationServer?: boolean } = {}): Promise<Setup> {
  const peer = await createOidcPeer();
  const dir = await keystoreDir();
  const keystore = await opensslPkcs12(dir, { alias: 'rp', password: 'store-pw' });
  const providerLines = (url: string) =>
    Object.entries(PROVIDERS).flatMap(([key, p]) => [
      `oidc.provider.${key}.client_id = ${p.clientId}`,
      `oidc.provider.${key}.client_authentication_method = ${p.method}`,
      ...(p.method === 'private_key_jwt'
        ? [
            `oidc.provider.${key}.keystore_path = ${keystore.path}`,
            `oidc.provider.${key}.keystore_password = store-pw`,
            `oidc.provider.${key}.key_alias = rp`,
            `oidc.provider.${key}.jwk_set_url = ${url}/api/publicKeys/${p.clientId}/jwks.json`,
            `oidc.provider.${key}.user_info_response_type = JWT`,
            `oidc.provider.${key}.user_info_jws_algorithm = RS256`,
          ]
        : [`oidc.provider.${key}.client_secret = secret of ${key}`]),
      `oidc.provider.${key}.authorization_uri = ${peer.issuer}/auth`,
      `oidc.provider.${key}.token_uri = ${peer.issuer}/token`,
      `oidc.provider.${key}.user_info_uri = ${peer.issuer}/me`,
      `oidc.provider.${key}.jwk_uri = ${peer.issuer}/jwks`,
      `oidc.provider.${key}.issuer_uri = ${peer.issuer}`,
      `oidc.provider.${key}.end_session_endpoint = ${peer.issuer}/session/end`,
      `oidc.provider.${key}.display_alias = Peer ${key}`,
      ...(key === 'pkce' ? [`oidc.provider.${key}.enable_pkce = on`] : []),
      ...(key === 'basic'
        ? [
            `oidc.provider.${key}.login_image = img/peer.svg`,
            `oidc.provider.${key}.login_image_padding = 2px 4px`,
            `oidc.provider.${key}.extra_request_parameters = prompt login, ui_locales en`,
          ]
        : []),
    ]);
  const app = await startAuthApp({
    ...options,
    config: (url) =>
      ['oidc.oauth2.login.enabled = on', `oidc.logout.redirect_url = ${url}/login`, ...providerLines(url), extra].join(
        '\n',
      ),
  });
  await peer.start(
    Object.entries(PROVIDERS).map(([key, p]) => ({
      client_id: p.clientId,
      ...(p.method === 'private_key_jwt'
        ? {
            jwks_uri: `${app.url}/api/publicKeys/${p.clientId}/jwks.json`,
            token_endpoint_auth_signing_alg: 'RS256',
            userinfo_signed_response_alg: 'RS256',
          }
        : { client_secret: `secret of ${key}` }),
      token_endpoint_auth_method: p.method,
      redirect_uris: [`${app.url}/oauth2/code/${key}`],
      post_logout_redirect_uris: [`${app.url}/login`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    { pkceClients: ['rp-pkce'] },
  );
  const external = { externalAuthOnly: true };
  await app.addUser('ada', undefined, { email: 'ada@example.org', openId: 'ada@example.org', ...external });
  await app.addUser('grace', undefined, { openId: 'grace@example.org', disabled: true, ...external });
  await app.addUser('linus', 'pw', { openId: 'linus@example.org' });
  for (const name of ['ada', 'grace', 'linus', 'ghost'])
    peer.accounts.set(`${name}-sub`, { email: `${name}@example.org`, email_verified: true });
  return { app, peer };
}

const me = async (browser: Browser) => JSON.parse((await browser.get('/me')).body) as { user_id: string };

async function signIn(setup: Setup, key: Key, login = 'ada-sub', browser = new Browser(setup.app.url)) {
  const result = await signInThroughPeer(browser, `/oauth2/authorization/${key}?return_to=%2Fjobs`, login);
  return { browser, ...result };
}

describe('sign-in through an external provider', () => {
  it('shows one button per external provider on the login page, with its alias and image', async () => {
    const { app } = await setup();
    const page = await new Browser(app.url).get('/login?return_to=%2Fjobs');
    for (const key of Object.keys(PROVIDERS))
      expect(page.body).toContain(`href="/oauth2/authorization/${key}?return_to=%2Fjobs"`);
    expect(page.body).toContain('<span>Peer basic</span>');
    expect(page.body).toMatch(/<img\s+src="img\/peer.svg"\s+alt=""\s+style="padding: 2px 4px"/);
    expect(page.body).not.toContain('platform-internal');
  });

  it.each(Object.keys(PROVIDERS) as Key[])(
    'signs a user in through provider %s and returns to the saved path',
    async (key) => {
      const setup_ = await setup();
      const { browser, final } = await signIn(setup_, key);
      expect(final.status).toBe(303);
      expect(final.location).toBe('/jobs');
      expect(await me(browser)).toMatchObject({ user_id: 'ada' });
      expect(browser.cookies.has('stratus_oidc_state')).toBe(false);
      const [session] = (await setup_.app.cluster.list(sessionKind)).items;
      expect(session!.spec).toMatchObject({ principalName: 'ada', provider: key });
      // The ID token is kept for the provider's logout, but only sealed under the cookie.
      expect(JSON.stringify(session)).not.toMatch(/eyJ/);
      const [user] = (await setup_.app.cluster.list<User>(userKind)).items.filter((u) => u.spec.username === 'ada');
      expect(user!.status?.lastLogin).toBeDefined();
    },
  );

  it('sends state, nonce, the S256 challenge with enable_pkce, the scopes and the extra parameters', async () => {
    const { app } = await setup();
    const browser = new Browser(app.url);
    const pkce = new URL((await browser.get('/oauth2/authorization/pkce')).location!);
    expect(pkce.searchParams.get('code_challenge_method')).toBe('S256');
    expect(pkce.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pkce.searchParams.get('scope')).toBe('openid email');
    expect(pkce.searchParams.get('redirect_uri')).toBe(`${app.url}/oauth2/code/pkce`);
    const basic = new URL((await browser.get('/oauth2/authorization/basic')).location!);
    expect(basic.searchParams.has('code_challenge')).toBe(false);
    expect(basic.searchParams.get('prompt')).toBe('login');
    expect(basic.searchParams.get('ui_locales')).toBe('en');
    expect(basic.searchParams.get('state')).not.toBe(basic.searchParams.get('nonce'));
  });

  it('describes its routes in the OpenAPI description', async () => {
    const { app } = await setup();
    const { paths } = (await (await fetch(`${app.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    for (const path of ['/oauth2/authorization/{key}', '/oauth2/code/{key}', '/api/publicKeys/{client_id}/jwks.json'])
      expect(paths[path], path).toMatchObject({ get: { 'x-stratus-access': 'public' } });
  });

  it('publishes the private_key_jwt key by client id, and nothing for other client ids', async () => {
    const { app } = await setup();
    const jwks = (await (await fetch(`${app.url}/api/publicKeys/rp-jwt/jwks.json`)).json()) as {
      keys: { kty: string; kid: string; d?: string }[];
    };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys[0]!.d).toBeUndefined();
    expect((await fetch(`${app.url}/api/publicKeys/rp-basic/jwks.json`)).status).toBe(404);
  });

  it('follows a key rotation at the provider between two sign-ins', async () => {
    const setup_ = await setup();
    expect(await me((await signIn(setup_, 'jwt')).browser)).toMatchObject({ user_id: 'ada' });
    const before = setup_.peer.kid();
    await setup_.peer.rotate();
    expect(setup_.peer.kid()).not.toBe(before);
    const again = await signIn(setup_, 'jwt');
    expect(again.final.location).toBe('/jobs');
    expect(await me(again.browser)).toMatchObject({ user_id: 'ada' });
  });

  it('logs out at the provider too, with the ID token as hint and oidc.logout.redirect_url', async () => {
    const setup_ = await setup();
    const { browser } = await signIn(setup_, 'basic');
    const form = await browser.get('/logout');
    const out = await browser.post('/logout', formFields(form.body));
    expect(out.status).toBe(303);
    const target = new URL(out.location!);
    expect(`${target.origin}${target.pathname}`).toBe(`${setup_.peer.issuer}/session/end`);
    expect(target.searchParams.get('id_token_hint')).toMatch(/^eyJ/);
    expect(target.searchParams.get('post_logout_redirect_uri')).toBe(`${setup_.app.url}/login`);
    expect(target.searchParams.get('client_id')).toBe('rp-basic');
    expect((await setup_.app.cluster.list(sessionKind)).items).toEqual([]);
    // The provider accepts the request: it asks the user to confirm the logout.
    const confirm = await fetch(target);
    expect(confirm.status).toBe(200);
  });
});

describe('sign-in without the authorization server', () => {
  it('signs a user in through an external provider and reads a protected page, the token endpoints 404', async () => {
    const setup_ = await setup('security.anonymous_read = off', { authorizationServer: false });
    const browser = new Browser(setup_.app.url);
    expect((await browser.get('/jobs')).status).toBe(401);
    const { final } = await signIn(setup_, 'basic', 'ada-sub', browser);
    expect(final.location).toBe('/jobs');
    expect(await me(browser)).toMatchObject({ user_id: 'ada' });
    expect((await browser.get('/jobs')).status).toBe(200);
    for (const path of Object.values(ENDPOINT_PATHS)) expect((await browser.get(path)).status, path).toBe(404);
    expect((await browser.post(ENDPOINT_PATHS.token, { grant_type: 'client_credentials' })).status).toBe(404);
    expect((await browser.get('/api/oAuth2Clients')).status).toBe(404);
  });
});

describe('refused sign-ins', () => {
  const refusedWith = async (setup_: Setup, response: { status: number; location?: string }, kind: string) => {
    expect(response.status).toBe(303);
    expect(new URL(response.location!, setup_.app.url).searchParams.get('oidc_error')).toBe(kind);
    expect((await setup_.app.cluster.list(sessionKind)).items).toEqual([]);
  };

  it.each([
    ['a user that does not exist', 'ghost-sub'],
    ['a disabled user', 'grace-sub'],
    ['a user not flagged for external sign-in', 'linus-sub'],
  ])('refuses %s with a message on the login page and no session', async (_name, login) => {
    const setup_ = await setup();
    const { final, browser } = await signIn(setup_, 'basic', login);
    await refusedWith(setup_, final, 'account');
    const page = await browser.get(final.location!);
    expect(page.body).toContain('No account of this instance may sign in with this identity.');
    expect(new URL(final.location!, setup_.app.url).searchParams.get('return_to')).toBe('/jobs');
  });

  it('refuses a callback whose state is not the one this browser sent', async () => {
    const setup_ = await setup();
    const browser = new Browser(setup_.app.url);
    const start = await browser.get('/oauth2/authorization/basic');
    const state = new URL(start.location!).searchParams.get('state')!;
    const forged = await browser.get(`/oauth2/code/basic?code=abc&state=${state.slice(1)}x`);
    await refusedWith(setup_, forged, 'state');
    // Another browser, without the state cookie, cannot complete it either.
    await refusedWith(
      setup_,
      await new Browser(setup_.app.url).get(`/oauth2/code/basic?code=abc&state=${state}`),
      'state',
    );
  });

  it('refuses a replayed callback, even with the state cookie back', async () => {
    const setup_ = await setup();
    const { browser, callback } = await signIn(setup_, 'basic');
    const cookie = browser.setCookies.find((c) => /^stratus_oidc_state=[^;]/.test(c))!.split(';')[0]!;
    await browser.post('/logout', formFields((await browser.get('/logout')).body));
    const replay = new Browser(setup_.app.url);
    const [name, value] = cookie.split('=') as [string, string];
    replay.cookies.set(name, value);
    await refusedWith(setup_, await replay.get(callback!), 'state');
  });

  it('refuses a callback the provider answered with an error, saying so', async () => {
    const setup_ = await setup();
    const browser = new Browser(setup_.app.url);
    const state = new URL((await browser.get('/oauth2/authorization/post')).location!).searchParams.get('state')!;
    await refusedWith(setup_, await browser.get(`/oauth2/code/post?error=access_denied&state=${state}`), 'denied');
  });

  it('answers an unknown provider key with a 404 page', async () => {
    const { app } = await setup();
    for (const path of [
      '/oauth2/authorization/nope',
      '/oauth2/code/nope?code=a&state=b',
      '/oauth2/authorization/platform-internal',
    ]) {
      const response = await new Browser(app.url).get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.body).toContain('No identity provider of this instance signs in under this name.');
    }
  });
});

describe('linked accounts', () => {
  it('signs the most recently used account in, and switches to another one', async () => {
    const setup_ = await setup('linked_accounts.enabled = on');
    await setup_.app.addUser('ada-admin', undefined, {
      email: 'ada+admin@example.org',
      openId: 'ada@example.org',
      externalAuthOnly: true,
    });
    const first = await signIn(setup_, 'basic');
    const current = (await me(first.browser)).user_id;
    const other = current === 'ada' ? 'ada-admin' : 'ada';
    // The page lists the other account; switching ends this session and signs in again at the provider.
    const page = await first.browser.get('/login/linked-accounts');
    expect(page.body).toContain(`Switch to ${other}`);
    const switched = await first.browser.post('/login/linked-accounts', { ...formFields(page.body), username: other });
    expect(switched.status).toBe(303);
    expect(switched.location).toBe('/oauth2/authorization/basic');
    expect(await me(first.browser)).toMatchObject({ user_id: 'anonymous' });
    const relogin = await signInThroughPeer(first.browser, switched.location!, 'ada-sub');
    expect(relogin.final.status).toBe(303);
    expect(await me(first.browser)).toMatchObject({ user_id: other });
    // A new sign-in of the identity lands on the account used last.
    expect(await me((await signIn(setup_, 'post')).browser)).toMatchObject({ user_id: other });
  });

  it('refuses a switch to an account that is not linked, and sends the switch to linked_accounts.logout_url', async () => {
    const setup_ = await setup(
      ['linked_accounts.enabled = on', 'linked_accounts.logout_url = https://idp.example.org/bye'].join('\n'),
    );
    await setup_.app.addUser('ada-admin', undefined, { openId: 'ada@example.org', externalAuthOnly: true });
    const { browser } = await signIn(setup_, 'basic');
    const form = formFields((await browser.get('/login/linked-accounts')).body);
    expect((await browser.post('/login/linked-accounts', { ...form, username: 'linus' })).status).toBe(400);
    expect((await browser.post('/login/linked-accounts', { ...form, csrf: 'x'.repeat(43) })).status).toBe(403);
    const switched = await browser.post('/login/linked-accounts', form);
    expect(switched.location).toBe('https://idp.example.org/bye');
  });

  it('shows a password session no linked account, and sends a browser without a session to the login page', async () => {
    const setup_ = await setup('linked_accounts.enabled = on');
    await setup_.app.addUser('root', 'pw', { openId: 'ada@example.org' });
    const browser = new Browser(setup_.app.url);
    const anonymous = await browser.get('/login/linked-accounts');
    expect(anonymous.location).toBe('/login?return_to=%2Flogin%2Flinked-accounts');
    await browser.post('/login', {
      ...formFields((await browser.get('/login')).body),
      username: 'root',
      password: 'pw',
    });
    const page = await browser.get('/login/linked-accounts');
    expect(page.status).toBe(200);
    expect(page.body).toContain('No other account.');
    const csrf = sessionCsrfToken(browser.cookies.get('stratus_session')!);
    expect((await browser.post('/login/linked-accounts', { csrf, username: 'ada' })).status).toBe(400);
  });

  it('refuses an identity with several accounts when linked accounts are off', async () => {
    const setup_ = await setup();
    await setup_.app.addUser('ada-admin', undefined, { openId: 'ada@example.org', externalAuthOnly: true });
    const { final } = await signIn(setup_, 'basic');
    expect(new URL(final.location!, setup_.app.url).searchParams.get('oidc_error')).toBe('account');
    expect((await new Browser(setup_.app.url).get('/login/linked-accounts')).status).toBe(404);
  });
});
