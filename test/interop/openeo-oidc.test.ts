/**
 * The openEO JavaScript client, unmodified, signs in with OpenID Connect against the internal provider of
 * `/credentials/oidc` and creates a batch job. js-client's OIDC support runs only in a browser (it is
 * built on oidc-client's UserManager), so a small page (openeo-oidc-page.html) served from its own loopback origin
 * loads js-client's browser bundle in Debian's headless Chromium: the same createJob is refused anonymously, then
 * the page signs in on Stratus's login and consent pages (redirect UI method, authorization code with S256 PKCE,
 * the token exchange and userinfo called cross-origin), creates the job with the token and renews the token with
 * the refresh token, as a web editor's silent renewal does.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { OPENEO_DEFAULT_CLIENT_LABEL } from '../../core/auth/openeo/providers.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { API_VERSION } from '../../core/resources/kind.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../core/resources/oauth2-client/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../core/resources/processing-job/schema.ts';
import { freePort } from '../../scripts/free-port.ts';
import { startAuthApp } from '../support/auth-app.ts';
import { NAMESPACE } from '../support/auth-context.ts';
import { keepOnLoopback, launchChromium } from '../support/chromium.ts';

/** The browser bundles the page loads: js-client's, and those of the libraries it expects as globals. */
const require = createRequire(import.meta.url);
const jsClientDir = dirname(require.resolve('@openeo/js-client/package.json'));
const fromJsClient = (name: string) => dirname(require.resolve(`${name}/package.json`, { paths: [jsClientDir] }));
const BUNDLES: Record<string, string> = {
  '/lib/openeo.min.js': join(jsClientDir, 'openeo.min.js'),
  '/lib/axios.min.js': join(fromJsClient('axios'), 'dist/axios.min.js'),
  '/lib/oidc-client.min.js': join(fromJsClient('oidc-client'), 'dist/oidc-client.min.js'),
};
const PAGE = join(dirname(fileURLToPath(import.meta.url)), 'openeo-oidc-page.html');
const CLIENT_ID = 'openeo-web-editor';

interface Report {
  step: string;
  [member: string]: unknown;
}

/** The test client's origin: the page (with Stratus's URL in it) and the bundles, nothing else. */
async function servePage(port: number, stratusUrl: string): Promise<Server> {
  const page = (await readFile(PAGE, 'utf8')).replace('STRATUS_URL', stratusUrl);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    const bundle = BUNDLES[path];
    if (path === '/client.html') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    } else if (bundle) {
      readFile(bundle).then(
        (body) => response.writeHead(200, { 'content-type': 'text/javascript' }).end(body),
        () => response.writeHead(500).end(),
      );
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

describe('@openeo/js-client signs in with OIDC (internal provider, PKCE) in headless Chromium', () => {
  it('is refused a job anonymously, signs in on the login and consent pages, creates the job and renews its token', async () => {
    const port = await freePort();
    const pageOrigin = `http://127.0.0.1:${port}`;
    const pageUrl = `${pageOrigin}/client.html`;
    // As an operator would: the web client's origin is allowed to call the API.
    const stratus = await startAuthApp({ config: `server.cors.allowed_origins = ${pageOrigin}` });
    const pageServer = await servePage(port, stratus.url);
    onTestFinished(() => new Promise<void>((resolve) => pageServer.close(() => resolve())));
    await stratus.addUser('ada', 'correct horse', { authorities: ['F_JOB_MANAGE'] });
    // A public client marked as openEO default client, whose redirect URI is the page (registered verbatim).
    await stratus.cluster.create<OAuth2Client & KubeObject>(oauth2ClientKind, {
      apiVersion: API_VERSION,
      kind: 'OAuth2Client',
      metadata: { name: CLIENT_ID, namespace: NAMESPACE, labels: { [OPENEO_DEFAULT_CLIENT_LABEL]: 'true' } },
      spec: {
        clientId: CLIENT_ID,
        clientAuthenticationMethods: ['none'],
        authorizationGrantTypes: ['authorization_code', 'refresh_token'],
        redirectUris: [pageUrl],
        scopes: ['openid', 'profile', 'username'],
        clientSettings: { requireProofKey: true, requireAuthorizationConsent: true },
      },
    });
    const browser = await launchChromium();
    onTestFinished(() => browser.close());
    const context = await browser.newContext();
    const leftTheMachine = await keepOnLoopback(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
    // What the page asked of Stratus from its own origin (cross-origin calls), and what came back.
    interface Call {
      call: string;
      status: number;
      allowOrigin?: string;
      /** The Authorization header without its token. */
      scheme?: string;
      form?: Record<string, string>;
    }
    const calls: Call[] = [];
    page.on('response', (response) => {
      const request = response.request();
      const url = new URL(request.url());
      const { origin, authorization } = request.headers();
      if (url.origin !== stratus.url || origin !== pageOrigin) return;
      calls.push({
        call: `${request.method()} ${url.pathname}`,
        status: response.status(),
        allowOrigin: response.headers()['access-control-allow-origin'],
        ...(authorization && { scheme: authorization.replace(/[^ /]+$/, '') }),
        ...(url.pathname === '/oauth2/token' && {
          form: Object.fromEntries(new URLSearchParams(request.postData() ?? '')),
        }),
      });
    });
    // The browser's navigations to the authorization endpoint (not scripts: no CORS).
    const authorizations: URL[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.isNavigationRequest() && url.origin === stratus.url && url.pathname === '/oauth2/authorize')
        authorizations.push(url);
    });
    const reports: Report[] = [];
    let finished: (report: Report) => void;
    let failed: (error: Error) => void;
    const done = new Promise<Report>((resolve, reject) => ((finished = resolve), (failed = reject)));
    await page.exposeFunction('report', (report: Report) => {
      reports.push(report);
      if (report.step === 'signed-in') finished(report);
      if (report.step === 'failed') failed(new Error(`the page failed: ${JSON.stringify(report.error)}`));
    });
    /** A step of the browser, cut short when the page reports a failure. */
    const step = <T>(action: Promise<T>) => Promise.race([action, done.then(() => action)]);

    await page.goto(pageUrl);
    // js-client leaves the page for the authorization endpoint, which sends the browser to the login page.
    await step(page.waitForURL((url) => url.href.startsWith(`${stratus.url}/login`), { timeout: 20_000 }));
    await page.fill('input[name=username]', 'ada');
    await page.fill('input[name=password]', 'correct horse');
    await page.click('button[type=submit]');
    await step(page.waitForURL((url) => url.href.startsWith(`${stratus.url}/oauth2/authorize`), { timeout: 20_000 }));
    await page.click('button[name=decision][value=approve]');
    const last = await done;

    expect(reports[0]).toMatchObject({
      step: 'anonymous',
      refused: { status: 401 },
    });
    // js-client chose the default client from /credentials/oidc by its redirect URL, with PKCE.
    expect(reports[1]).toEqual({
      step: 'provider',
      found: true,
      clientId: CLIENT_ID,
      grant: 'authorization_code+pkce',
      redirectUrl: pageUrl,
    });
    expect(last, JSON.stringify(last)).toMatchObject({
      step: 'signed-in',
      resumed: true,
      displayName: 'ada',
      // offline_access is ignored; the refresh token comes with the client's refresh_token grant.
      scope: 'openid profile username',
      refreshToken: true,
      userId: 'ada',
      job: { status: 'created', title: 'signed in' },
      // The silent renewal exchanged the refresh token (rotated: this is a public client) for a new access token,
      // which the connection then used.
      renewal: { newAccessToken: true, newRefreshToken: true, connectionToken: true, userId: 'ada' },
    });
    // oidc-client read the discovery document (once per UserManager: before leaving, back with the code, and for
    // the renewal), exchanged the code at the token endpoint, read userinfo with the access token (a request with
    // an Authorization header, so after a preflight, which Chromium does not show), and renewed with the refresh
    // token, all cross-origin. It checks the ID token's claims but, in the code flow, not its signature (OIDC Core
    // 3.1.3.7 lets the TLS connection to the token endpoint stand for it), so it never fetches the JWKS.
    const oauth = calls.filter(({ call }) => /\/(oauth2|\.well-known\/openid)/.test(call));
    expect(oauth.map(({ call, status }) => `${call} ${status}`)).toEqual([
      'GET /.well-known/openid-configuration 200',
      'GET /.well-known/openid-configuration 200',
      'POST /oauth2/token 200',
      'GET /oauth2/userinfo 200',
      'GET /.well-known/openid-configuration 200',
      'POST /oauth2/token 200',
    ]);
    // The API answered the configured origin; the OAuth endpoints answer any (api-server/plugins/external/cors.ts).
    for (const { call, allowOrigin } of calls)
      expect(allowOrigin, call).toBe(oauth.some((o) => o.call === call) ? '*' : pageOrigin);
    // PKCE: the authorization request carried an S256 challenge, and the exchange, as a public client (no secret),
    // the verifier that hashes to it.
    const authorization = authorizations[0]!.searchParams;
    expect(Object.fromEntries(authorization)).toMatchObject({
      client_id: CLIENT_ID,
      redirect_uri: pageUrl,
      response_type: 'code',
      scope: 'openid profile username offline_access',
      code_challenge_method: 'S256',
    });
    const [token, renewal] = oauth.filter(({ call }) => call === 'POST /oauth2/token');
    expect(renewal!.form).toEqual({
      grant_type: 'refresh_token',
      client_id: CLIENT_ID,
      refresh_token: expect.any(String),
    });
    expect(token!.form).toEqual({
      grant_type: 'authorization_code',
      client_id: CLIENT_ID,
      redirect_uri: pageUrl,
      code: expect.any(String),
      code_verifier: expect.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/),
    });
    expect(createHash('sha256').update(token!.form!.code_verifier!).digest('base64url')).toBe(
      authorization.get('code_challenge'),
    );
    // The job was refused without a token and created with the access token in openEO's form.
    expect(calls.filter(({ call }) => call === 'POST /jobs').map(({ status, scheme }) => [status, scheme])).toEqual([
      [401, undefined],
      [201, 'Bearer oidc/platform-internal/'],
    ]);

    // The job exists, read back with the token js-client holds; the anonymous attempt stored nothing.
    const id = (last.job as { id: string }).id;
    const response = await fetch(`${stratus.url}/jobs/${id}`, {
      headers: { authorization: `Bearer oidc/platform-internal/${String(last.token)}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id, status: 'created', title: 'signed in' });
    const { items } = await stratus.cluster.list<ProcessingJob>(processingJobKind, { namespace: NAMESPACE });
    expect(items.map((job) => job.metadata.name)).toEqual([id]);

    // The only console error is the browser's note of the anonymous attempt's 401.
    expect(problems).toEqual([expect.stringMatching(/401/)]);
    expect(leftTheMachine).toEqual([]);
  }, 60_000);
});
