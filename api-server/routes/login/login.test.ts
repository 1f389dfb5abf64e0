import { describe, expect, it } from 'vitest';
import { sessionLogId } from '../../../core/logging/context.ts';
import { sessionKind } from '../../../core/resources/session/schema.ts';
import { build } from '../../test/build.ts';
import { Browser, formFields, signIn, startAuthApp } from '../../../test/support/auth-app.ts';
import { localReturnPath } from './return-to.ts';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function setup(config?: string) {
  const app = await startAuthApp({ config });
  await app.addUser('ada', 'pw', { email: 'ada@example.org', authorities: ['F_DATASET_MANAGE'] });
  await app.addUser('grace', 'pw', { disabled: true });
  await app.addUser('linus', 'pw', { externalAuthOnly: true });
  await app.addUser('old', 'pw', { accountExpiry: '2020-01-01T00:00:00Z' });
  return app;
}

describe('HTTP basic authentication on the API', () => {
  it('describes the caller at /me', async () => {
    const app = await setup();
    const me = await fetch(`${app.url}/me`, { headers: { authorization: basic('ada', 'pw') } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      user_id: 'ada',
      email: 'ada@example.org',
      roles: ['F_DATASET_MANAGE'],
      budget: null,
    });
  });

  it.each([
    ['a wrong password', basic('ada', 'pW')],
    ['an unknown user', basic('nobody', 'pw')],
    ['a disabled account', basic('grace', 'pw')],
    ['an account that signs in externally only', basic('linus', 'pw')],
    ['an expired account', basic('old', 'pw')],
    ['malformed credentials', 'Basic %%%'],
    ['an unknown scheme', 'Digest username="ada"'],
  ])('refuses %s with 401 and a Basic challenge, even on a public read', async (_name, header) => {
    const app = await setup();
    const response = await fetch(`${app.url}/datasets`, { headers: { authorization: header } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="Stratus", charset="UTF-8"');
    expect(Object.keys((await response.json()) as object)).toEqual(['detail']);
  });

  it('describes a caller without credentials as the anonymous user, and lets anonymous reads through', async () => {
    const app = await setup();
    const me = await fetch(`${app.url}/me`);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ user_id: 'anonymous' });
    expect((await fetch(`${app.url}/datasets`)).status).toBe(200);
  });
});

describe('login page and session', () => {
  it('signs in with an HTTP-only, SameSite=Lax session cookie that every request then carries', async () => {
    const app = await setup();
    const browser = new Browser(app.url);
    const page = await browser.get('/login');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.body).toContain('name="csrf"');
    const signedIn = await browser.post('/login', { ...formFields(page.body), username: 'ada', password: 'pw' });
    expect(signedIn.status).toBe(303);
    const cookie = browser.setCookies.find((c) => c.startsWith('stratus_session='))!;
    expect(cookie).toMatch(/; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toContain('Secure');
    expect(await (await browser.get('/me')).body).toContain('"user_id":"ada"');
    // The store knows the session by its cookie's hash only.
    const [session] = (await app.cluster.list(sessionKind)).items;
    expect(session!.metadata.name).toMatch(/^s-[0-9a-f]{64}$/);
    expect(JSON.stringify(session)).not.toContain(browser.cookies.get('stratus_session')!);
  });

  it('shows the form again, with no session, for a wrong password or an account that may not sign in', async () => {
    const app = await setup();
    for (const [username, password] of [
      ['ada', 'wrong'],
      ['grace', 'pw'],
      ['linus', 'pw'],
    ]) {
      const browser = new Browser(app.url);
      const response = await signIn(browser, username!, password!);
      expect(response.status).toBe(200);
      expect(response.body).toContain('The username or password is wrong.');
      expect(browser.cookies.has('stratus_session')).toBe(false);
    }
    expect((await app.cluster.list(sessionKind)).items).toEqual([]);
  });

  it('signs out with the logout form: the session record goes and the cookie is cleared', async () => {
    const app = await setup();
    const browser = new Browser(app.url);
    await signIn(browser, 'ada', 'pw');
    const cookie = browser.cookies.get('stratus_session')!;
    const form = await browser.get('/logout');
    expect((await browser.post('/logout', { csrf: 'x'.repeat(43) })).status).toBe(403);
    const out = await browser.post('/logout', formFields(form.body));
    expect(out.status).toBe(303);
    expect(out.location).toBe('/login');
    expect(browser.cookies.has('stratus_session')).toBe(false);
    expect((await app.cluster.list(sessionKind)).items).toEqual([]);
    // The old cookie names no session any more: its bearer is anonymous.
    const stale = await fetch(`${app.url}/me`, { headers: { cookie: `stratus_session=${cookie}` } });
    expect(await stale.json()).toMatchObject({ user_id: 'anonymous' });
  });

  it('marks the cookies Secure with the __Host- prefix when a trusted proxy says the request came over HTTPS', async () => {
    const trusted = await setup('server.proxy.trusted = on');
    const behindTls = new Browser(trusted.url);
    const page = await behindTls.request('GET', '/login', { headers: { 'x-forwarded-proto': 'https' } });
    expect(behindTls.setCookies[0]).toMatch(/^__Host-stratus_csrf=.*; Secure$/);
    await behindTls.request('POST', '/login', {
      form: { ...formFields(page.body), username: 'ada', password: 'pw' },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(behindTls.setCookies.find((c) => c.startsWith('__Host-stratus_session='))).toMatch(
      /HttpOnly; SameSite=Lax; Secure$/,
    );
    // Without trust, the header changes nothing.
    const untrusted = await setup();
    const plain = new Browser(untrusted.url);
    await plain.request('GET', '/login', { headers: { 'x-forwarded-proto': 'https' } });
    expect(plain.setCookies[0]).toMatch(/^stratus_csrf=/);
    expect(plain.setCookies[0]).not.toContain('Secure');
  });

  it('puts the hash of the session, never the cookie, as sessionId in the log lines of a request', async () => {
    const app = await setup();
    const browser = new Browser(app.url);
    await signIn(browser, 'ada', 'pw');
    const cookie = browser.cookies.get('stratus_session')!;
    await browser.get('/health', { 'x-request-id': 'withsession1' });
    const lines = app.logLines().filter((l) => l.xRequestID === 'withsession1');
    expect(lines.map((l) => l.msg)).toEqual(['request completed']);
    expect(lines.every((l) => l.sessionId === sessionLogId(cookie))).toBe(true);
    expect(JSON.stringify(app.logLines())).not.toContain(cookie);
  });
});

describe('with the authorization server off', () => {
  it('answers 404 at every endpoint of the authorization server and the login page', async () => {
    const { app } = await build();
    for (const [method, url] of [
      ['GET', '/.well-known/openid-configuration'],
      ['GET', '/oauth2/authorize'],
      ['POST', '/oauth2/token'],
      ['GET', '/oauth2/jwks'],
      ['POST', '/oauth2/revoke'],
      ['POST', '/oauth2/introspect'],
      ['GET', '/oauth2/userinfo'],
      ['GET', '/login'],
    ] as const) {
      const response = await app.inject({ method, url });
      expect(response.statusCode, url).toBe(404);
    }
    // Credentials are not looked at: the instance is open.
    const me = await app.inject({ url: '/me', headers: { authorization: basic('x', 'y') } });
    expect(me.json()).toMatchObject({ user_id: 'anonymous' });
  });
});

describe('return_to', () => {
  it.each([
    ['/oauth2/authorize?client_id=a', '/oauth2/authorize?client_id=a'],
    ['https://evil.example.org', '/'],
    ['//evil.example.org', '/'],
    ['/\\evil.example.org', '/'],
    ['/a\nb', '/'],
    [undefined, '/'],
    ['/caf\u00e9 \u20ac?q=\u{1f600}', '/caf%C3%A9%20%E2%82%AC?q=%F0%9F%98%80'],
    ['/caf%C3%A9', '/caf%C3%A9'],
    ['/lone\ud800', '/'],
  ])('keeps %s as %s', (value, expected) => {
    expect(localReturnPath(value, '/')).toBe(expected);
  });

  it('sends the browser to a return_to with characters above U+00FF, percent-encoded, after signing in', async () => {
    const app = await setup();
    const browser = new Browser(app.url);
    const page = await browser.get('/login');
    const returnTo = '/datasets?title=\u20ac\u0100';
    const signedIn = await browser.post('/login', {
      ...formFields(page.body),
      return_to: returnTo,
      username: 'ada',
      password: 'pw',
    });
    expect([signedIn.status, signedIn.location]).toEqual([303, '/datasets?title=%E2%82%AC%C4%80']);
    const again = await browser.get(`/login?return_to=${encodeURIComponent(returnTo)}`);
    expect([again.status, again.location]).toEqual([303, '/datasets?title=%E2%82%AC%C4%80']);
  });
});
