import { describe, expect, it } from 'vitest';
import { s256Challenge } from '../../../core/auth/pkce.ts';
import { SYSTEM_SETTINGS_CONFIGMAP } from '../../../core/auth/system-settings.ts';
import { configMapKind } from '../../../core/cluster/builtin-kinds.ts';
import type { KubeObject } from '../../../core/cluster/objects.ts';
import { Browser, signIn, startAuthApp, type AuthApp } from '../../../test/support/auth-app.ts';
import { build } from '../../test/build.ts';

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
const ADMIN = basic('admin', 'pw');

async function setup(config?: string) {
  const app = await startAuthApp({ config });
  await app.addUser('admin', 'pw', { authorities: ['ALL'] });
  await app.addUser('ada', 'pw');
  await app.addUser('clerk', 'pw', { authorities: ['F_OAUTH2_CLIENT_MANAGE'] });
  return app;
}

async function call(
  app: AuthApp,
  method: string,
  path: string,
  options: { auth?: string; body?: string; type?: string } = { auth: ADMIN },
) {
  const headers: Record<string, string> = {};
  if (options.auth) headers.authorization = options.auth;
  if (options.type) headers['content-type'] = options.type;
  const response = await fetch(`${app.url}${path}`, { method, headers, body: options.body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const text = (value: string) => ({ auth: ADMIN, body: value, type: 'text/plain' });
const json = (value: unknown) => ({ auth: ADMIN, body: JSON.stringify(value), type: 'application/json' });

const DEFAULTS = {
  deviceEnrollmentRedirectAllowlist: 'stratus://oauth',
  deviceEnrollmentAllowedUserGroups: '',
  deviceEnrollmentIATTtlSeconds: 60,
};

describe('/api/systemSettings', () => {
  it('is the superuser’s: 401 with a challenge without credentials, 403 without the authority ALL', async () => {
    const app = await setup();
    for (const [method, path, body] of [
      ['GET', '/api/systemSettings', undefined],
      ['GET', '/api/systemSettings/deviceEnrollmentIATTtlSeconds', undefined],
      ['POST', '/api/systemSettings/deviceEnrollmentIATTtlSeconds', 'not a number'],
      ['POST', '/api/systemSettings', '{"nonsense": true}'],
      ['DELETE', '/api/systemSettings/deviceEnrollmentIATTtlSeconds', undefined],
    ] as const) {
      const type = body === undefined ? undefined : body.startsWith('{') ? 'application/json' : 'text/plain';
      const anonymous = await call(app, method, path, { body, type });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm="Stratus"/);
      for (const user of ['ada', 'clerk']) {
        const refused = await call(app, method, path, { auth: basic(user, 'pw'), body, type });
        expect(refused.status, `${user}: ${method} ${path}`).toBe(403);
        expect(refused.body).toEqual({ detail: 'This request needs the authority ALL.' });
      }
    }
    const wrong = await call(app, 'GET', '/api/systemSettings', { auth: basic('admin', 'wrong') });
    expect(wrong.status).toBe(401);
  });

  it('reads every setting in force, defaults included, and one by its key', async () => {
    const app = await setup();
    expect(await call(app, 'GET', '/api/systemSettings')).toMatchObject({ status: 200, body: DEFAULTS });
    expect((await call(app, 'GET', '/api/systemSettings/deviceEnrollmentIATTtlSeconds')).body).toEqual({
      deviceEnrollmentIATTtlSeconds: 60,
    });
    for (const method of ['GET', 'DELETE']) {
      const unknown = await call(app, method, '/api/systemSettings/keyApplicationTitle');
      expect(unknown.status, method).toBe(404);
      expect(unknown.body.detail).toMatch(/No system setting is called 'keyApplicationTitle'/);
    }
    expect((await call(app, 'POST', '/api/systemSettings/keyApplicationTitle', text('x'))).status).toBe(404);
  });

  it('sets one setting from a text/plain body or ?value=, and DELETE puts back its default', async () => {
    const app = await setup();
    const set = await call(app, 'POST', '/api/systemSettings/deviceEnrollmentIATTtlSeconds', text('300'));
    expect(set).toMatchObject({
      status: 200,
      body: {
        httpStatus: 'OK',
        httpStatusCode: 200,
        status: 'OK',
        message: "System setting 'deviceEnrollmentIATTtlSeconds' set to '300'.",
      },
    });
    const groups = await call(
      app,
      'POST',
      `/api/systemSettings/deviceEnrollmentAllowedUserGroups?value=${encodeURIComponent(' Fw8kHBG5dNm , uTZ3qQ0VcIe ')}`,
    );
    expect(groups.status).toBe(200);
    expect((await call(app, 'GET', '/api/systemSettings')).body).toEqual({
      ...DEFAULTS,
      deviceEnrollmentAllowedUserGroups: 'Fw8kHBG5dNm,uTZ3qQ0VcIe',
      deviceEnrollmentIATTtlSeconds: 300,
    });
    // An empty ?value= empties a list (no custom scheme is allowed then).
    await call(app, 'POST', '/api/systemSettings/deviceEnrollmentRedirectAllowlist?value=');
    expect((await app.app.auth!.systemSettings()).deviceEnrollmentRedirectAllowlist).toEqual([]);
    for (const key of ['deviceEnrollmentIATTtlSeconds', 'deviceEnrollmentRedirectAllowlist']) {
      const reset = await call(app, 'DELETE', `/api/systemSettings/${key}`);
      expect(reset.body.message).toBe(`System setting '${key}' is back to its default.`);
    }
    expect((await call(app, 'GET', '/api/systemSettings')).body).toEqual({
      ...DEFAULTS,
      deviceEnrollmentAllowedUserGroups: 'Fw8kHBG5dNm,uTZ3qQ0VcIe',
    });
  });

  it('refuses a value that breaks its rule with 409 InvalidSystemSetting, and a value given twice or not at all', async () => {
    const app = await setup();
    const refused = await call(app, 'POST', '/api/systemSettings/deviceEnrollmentIATTtlSeconds', text('3601'));
    expect(refused).toMatchObject({
      status: 409,
      body: {
        httpStatus: 'Conflict',
        httpStatusCode: 409,
        status: 'ERROR',
        message: 'deviceEnrollmentIATTtlSeconds must be a whole number of seconds from 1 to 3600',
        response: {
          errorReports: [
            {
              message: 'deviceEnrollmentIATTtlSeconds must be a whole number of seconds from 1 to 3600',
              errorCode: 'InvalidSystemSetting',
              errorProperty: 'deviceEnrollmentIATTtlSeconds',
            },
          ],
        },
      },
    });
    const glob = await call(app, 'POST', '/api/systemSettings/deviceEnrollmentRedirectAllowlist', text('*://oauth'));
    expect(glob.status).toBe(409);
    expect(glob.body.message).toBe(
      "deviceEnrollmentRedirectAllowlist '*://oauth' must start with a scheme without *, such as myapp:",
    );
    const twice = await call(app, 'POST', '/api/systemSettings/deviceEnrollmentIATTtlSeconds?value=5', text('6'));
    expect(twice).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/either as a text\/plain/) } });
    expect((await call(app, 'POST', '/api/systemSettings/deviceEnrollmentIATTtlSeconds')).status).toBe(400);
    const asJson = await call(app, 'POST', '/api/systemSettings/deviceEnrollmentIATTtlSeconds', json(5));
    expect(asJson).toMatchObject({ status: 415, body: { detail: expect.stringMatching(/text\/plain/) } });
    expect((await call(app, 'GET', '/api/systemSettings')).body).toEqual(DEFAULTS);
  });

  it('sets several settings from a JSON object, all or none', async () => {
    const app = await setup();
    const refused = await call(
      app,
      'POST',
      '/api/systemSettings',
      json({
        deviceEnrollmentIATTtlSeconds: 120,
        deviceEnrollmentRedirectAllowlist: 'myapp://cb,https://*/enrol',
        keyApplicationTitle: 'Stratus',
      }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('2 system settings are refused; nothing was changed.');
    expect(refused.body.response.errorReports).toEqual([
      {
        message: "deviceEnrollmentRedirectAllowlist 'https://*/enrol' must name its host, without * (http and https)",
        errorCode: 'InvalidSystemSetting',
        errorProperty: 'deviceEnrollmentRedirectAllowlist',
      },
      {
        message: "No system setting is called 'keyApplicationTitle'.",
        errorCode: 'InvalidSystemSetting',
        errorProperty: 'keyApplicationTitle',
      },
    ]);
    expect((await call(app, 'GET', '/api/systemSettings')).body).toEqual(DEFAULTS);
    const notAnObject = await call(app, 'POST', '/api/systemSettings', json(['x']));
    expect(notAnObject.status).toBe(422);

    const settings = {
      deviceEnrollmentIATTtlSeconds: '120',
      deviceEnrollmentRedirectAllowlist: 'myapp://cb, stratus://oauth/*',
      deviceEnrollmentAllowedUserGroups: 'Fw8kHBG5dNm',
    };
    expect((await call(app, 'POST', '/api/systemSettings', json(settings))).status).toBe(200);
    const stored = (await call(app, 'GET', '/api/systemSettings')).body;
    expect(stored).toEqual({
      deviceEnrollmentIATTtlSeconds: 120,
      deviceEnrollmentRedirectAllowlist: 'myapp://cb,stratus://oauth/*',
      deviceEnrollmentAllowedUserGroups: 'Fw8kHBG5dNm',
    });
    // What GET answers can be posted back as it is.
    expect((await call(app, 'POST', '/api/systemSettings', json(stored))).status).toBe(200);
    expect((await call(app, 'GET', '/api/systemSettings')).body).toEqual(stored);
  });

  it('lands every one of concurrent writes of different settings', async () => {
    const app = await setup();
    const writes = await Promise.all([
      call(app, 'POST', '/api/systemSettings/deviceEnrollmentIATTtlSeconds', text('90')),
      call(app, 'POST', '/api/systemSettings/deviceEnrollmentAllowedUserGroups', text('a,b')),
      call(app, 'POST', '/api/systemSettings/deviceEnrollmentRedirectAllowlist', text('myapp://cb')),
      call(app, 'POST', '/api/systemSettings', json({ deviceEnrollmentAllowedUserGroups: 'a,b' })),
    ]);
    expect(writes.map((w) => w.status)).toEqual([200, 200, 200, 200]);
    expect((await call(app, 'GET', '/api/systemSettings')).body).toEqual({
      deviceEnrollmentIATTtlSeconds: 90,
      deviceEnrollmentAllowedUserGroups: 'a,b',
      deviceEnrollmentRedirectAllowlist: 'myapp://cb',
    });
    const map = await app.cluster.get<KubeObject & { data: Record<string, string> }>(
      configMapKind,
      SYSTEM_SETTINGS_CONFIGMAP,
      'default',
    );
    expect(map?.data).toEqual({
      deviceEnrollmentIATTtlSeconds: '90',
      deviceEnrollmentAllowedUserGroups: 'a,b',
      deviceEnrollmentRedirectAllowlist: 'myapp://cb',
    });
  });

  it('lets a custom-scheme redirect URI through /oauth2/authorize once it is added to the allow-list', async () => {
    const app = await setup();
    await app.addClient({ clientId: 'cli', redirectUris: ['stratus://oauth', 'myapp://cb'] });
    const browser = new Browser(app.url);
    await signIn(browser, 'ada', 'pw');
    const authorize = () =>
      browser.get(
        `/oauth2/authorize?${new URLSearchParams({
          client_id: 'cli',
          redirect_uri: 'myapp://cb',
          response_type: 'code',
          scope: 'openid',
          code_challenge: s256Challenge('v'.repeat(43)),
          code_challenge_method: 'S256',
          state: 'st',
        })}`,
      );
    const refused = await authorize();
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('breaks the client rules');
    const current = (await call(app, 'GET', '/api/systemSettings/deviceEnrollmentRedirectAllowlist')).body;
    await call(
      app,
      'POST',
      '/api/systemSettings/deviceEnrollmentRedirectAllowlist',
      text(`${current.deviceEnrollmentRedirectAllowlist},myapp://cb`),
    );
    expect((await authorize()).location).toMatch(/^myapp:\/\/cb\?code=/);
    await call(app, 'DELETE', '/api/systemSettings/deviceEnrollmentRedirectAllowlist');
    expect((await authorize()).status).toBe(400);
  });

  it('refuses writes on a read-only instance, as every write, and still reads', async () => {
    const app = await setup('read_only = on');
    const refused = await call(app, 'POST', '/api/systemSettings/deviceEnrollmentIATTtlSeconds', text('90'));
    expect(refused).toMatchObject({ status: 403, body: { id: 'read-only', code: 'PermissionsInsufficient' } });
    expect((await call(app, 'DELETE', '/api/systemSettings/deviceEnrollmentIATTtlSeconds')).status).toBe(403);
    expect((await call(app, 'GET', '/api/systemSettings')).body).toEqual(DEFAULTS);
  });

  it('exists only with the authorization server on', async () => {
    const { app } = await build();
    expect((await app.inject({ url: '/api/systemSettings' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/api/oAuth2Authorizations' })).statusCode).toBe(404);
  });
});
