/**
 * Who may do what (DESIGN.md §5): every write operation of the OpenAPI description tried anonymous,
 * by a user without its authority and by one with it; reads anonymous or not per `security.anonymous_read`; the
 * documented table of authorities against the routes; openEO's bearer form.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OpenEO } from '@openeo/js-client';
import { describe, expect, it } from 'vitest';
import { s256Challenge } from '../../../../core/auth/pkce.ts';
import { authorize, Browser, postForm, startAuthApp, type AuthApp } from '../../../../test/support/auth-app.ts';
import { build } from '../../../test/build.ts';
import type { KubeObject } from '../../../../core/cluster/objects.ts';
import { API_VERSION } from '../../../../core/resources/kind.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../../../core/resources/oauth2-client/schema.ts';
import { NAMESPACE } from '../../../../test/support/auth-context.ts';
import { AUTHORITIES } from './authority.ts';

const root = join(import.meta.dirname, '../../../..');
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const WRITE_METHODS = ['post', 'put', 'patch', 'delete'];

interface Operation {
  method: string;
  path: string;
  access: string;
  tags: string[];
}

async function writeOperations(app: AuthApp): Promise<Operation[]> {
  const document = (await (await fetch(`${app.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { 'x-stratus-access'?: string; security?: unknown[]; tags?: string[] }>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => WRITE_METHODS.includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        access: operation['x-stratus-access']!,
        tags: operation.tags ?? [],
      })),
  );
}

/** A concrete URL for a path template: every parameter a plausible id. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'a1b2c3d4e5f');

function call(app: AuthApp, { method, path }: Operation, authorization?: string) {
  return fetch(`${app.url}${concrete(path)}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(authorization ? { authorization } : {}),
    },
    body: method === 'DELETE' ? undefined : '{}',
  });
}

async function usersApp(config?: string) {
  const app = await startAuthApp({ config });
  await app.addUser('nobody', 'pw');
  await app.addUser('root', 'pw', { authorities: ['ALL'] });
  for (const authority of Object.keys(AUTHORITIES))
    await app.addUser(authority.toLowerCase(), 'pw', { authorities: [authority] });
  return app;
}

describe('writes once authentication is configured', () => {
  it('refuses every write route anonymous (401) and without its authority (403), and lets its authority through', async () => {
    const app = await usersApp();
    const operations = await writeOperations(app);
    expect(operations.length).toBeGreaterThan(15);
    for (const operation of operations) {
      const what = `${operation.method} ${operation.path}`;
      expect(operation.access, what).toBeDefined();
      if (operation.access === 'public') continue;
      // openEO routes say it in openEO's codes, for openEO clients; the others in Stratus's.
      const openEo = operation.tags.some((t) => t.startsWith('openEO'));
      const anonymous = await call(app, operation);
      expect(anonymous.status, what).toBe(401);
      expect(anonymous.headers.get('www-authenticate'), what).toMatch(/^Basic realm=/);
      if (openEo) expect(await anonymous.json(), what).toMatchObject({ code: 'AuthenticationRequired' });
      else expect(await anonymous.json(), what).toEqual({ detail: expect.any(String) });
      const lacking = await call(app, operation, basic('nobody', 'pw'));
      expect(lacking.status, what).toBe(403);
      expect(await lacking.json(), what).toMatchObject(
        openEo
          ? { code: 'PermissionsInsufficient', message: expect.stringContaining(operation.access) }
          : { detail: expect.stringContaining(operation.access) },
      );
      for (const user of [operation.access.toLowerCase(), 'root']) {
        const allowed = await call(app, operation, basic(user, 'pw'));
        expect([401, 403], `${what} as ${user}`).not.toContain(allowed.status);
      }
      // Another authority is not this one.
      const other = Object.keys(AUTHORITIES).find((a) => a !== operation.access && a !== 'ALL')!;
      expect((await call(app, operation, basic(other.toLowerCase(), 'pw'))).status, `${what} as ${other}`).toBe(403);
    }
  });

  it('documents each write route’s access in docs/authorization.md, as the routes declare it', async () => {
    const app = await usersApp();
    const doc = await readFile(join(root, 'docs/authorization.md'), 'utf8');
    const documented = new Map<string, string>();
    for (const [, method, paths, access] of doc.matchAll(
      /^\| (POST|PUT|PATCH|DELETE) \| (`[^|]+`) \| `([A-Za-z_0-9-]+)`/gm,
    ))
      for (const [, path] of paths!.matchAll(/`([^`]+)`/g)) documented.set(`${method} ${path}`, access!);
    for (const operation of await writeOperations(app))
      expect(documented.get(`${operation.method} ${operation.path}`), `${operation.method} ${operation.path}`).toBe(
        operation.access,
      );
  });

  it('keeps writes open when no authentication is configured (spec 1)', async () => {
    const { app } = await build();
    const response = await app.inject({
      method: 'POST',
      url: '/ingestions',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect([401, 403]).not.toContain(response.statusCode);
  });

  it('refuses to start with a write route that does not say who may call it', async () => {
    const { app } = await build();
    await expect(
      app.register(async (scope) => {
        scope.post('/open-by-mistake', async () => ({}));
      }),
    ).rejects.toThrow(/POST \/open-by-mistake does not say who may call it/);
  });
});

describe('reads', () => {
  it('stay anonymous by default, and with security.anonymous_read = off need a user but for discovery and sign-in', async () => {
    const open = await usersApp();
    expect((await fetch(`${open.url}/collections`)).status).toBe(200);
    const closed = await usersApp('security.anonymous_read = off');
    for (const path of ['/collections', '/datasets', '/processes', '/jobs', '/?list-type=2'])
      expect((await fetch(`${closed.url}${path}`)).status, path).toBe(401);
    for (const path of [
      '/',
      '/.well-known/openeo',
      '/.well-known/openid-configuration',
      '/oauth2/jwks',
      '/credentials/oidc',
      '/conformance',
      '/me',
      '/health',
      '/openapi.json',
      '/login',
    ])
      expect((await fetch(`${closed.url}${path}`)).status, path).toBe(200);
    const signedIn = await fetch(`${closed.url}/collections`, { headers: { authorization: basic('nobody', 'pw') } });
    expect(signedIn.status).toBe(200);
  });
});

describe("openEO's basic authentication (@openeo/js-client)", () => {
  it('signs in at /credentials/basic and writes with Bearer basic//<token>; anonymous writes are refused', async () => {
    const app = await usersApp();
    const graph = { sum: { process_id: 'add', arguments: { x: 1, y: 2 }, result: true } };
    const anonymous = await OpenEO.connect(app.url);
    await expect(anonymous.setUserProcess('three', { process_graph: graph })).rejects.toMatchObject({ status: 401 });
    const connection = await OpenEO.connect(app.url);
    await connection.authenticateBasic('f_job_manage', 'pw');
    expect(await connection.describeAccount()).toMatchObject({ user_id: 'f_job_manage' });
    const stored = await connection.setUserProcess('three', { process_graph: graph });
    expect(stored.id).toBe('three');
    const lacking = await OpenEO.connect(app.url);
    await lacking.authenticateBasic('nobody', 'pw');
    await expect(lacking.setUserProcess('four', { process_graph: graph })).rejects.toMatchObject({ status: 403 });
    await expect(OpenEO.connect(app.url).then((c) => c.authenticateBasic('nobody', 'wrong'))).rejects.toThrow();
    const forged = await fetch(`${app.url}/me`, { headers: { authorization: 'Bearer basic//' + 'x'.repeat(43) } });
    expect(forged.status).toBe(401);
  });
});

describe('/credentials/oidc', () => {
  it('lists the internal provider, discoverable at its issuer, with the labelled public clients as default clients', async () => {
    const app = await usersApp();
    const client = (
      clientId: string,
      labelled: boolean,
      methods: OAuth2Client['spec']['clientAuthenticationMethods'],
    ) =>
      app.cluster.create<OAuth2Client & KubeObject>(oauth2ClientKind, {
        apiVersion: API_VERSION,
        kind: 'OAuth2Client',
        metadata: {
          name: clientId,
          namespace: NAMESPACE,
          ...(labelled && { labels: { 'climate.stratus.dev/openeo-default-client': 'true' } }),
        },
        spec: {
          clientId,
          clientAuthenticationMethods: methods,
          authorizationGrantTypes: ['authorization_code', 'refresh_token'],
          redirectUris: ['https://editor.example.org/'],
          scopes: ['openid'],
          clientSettings: { requireProofKey: true, requireAuthorizationConsent: true },
        },
      });
    await client('editor', true, ['none']);
    await client('confidential', true, ['client_secret_basic']);
    await client('unlabelled', false, ['none']);
    const body = (await (await fetch(`${app.url}/credentials/oidc`)).json()) as { providers: { issuer: string }[] };
    expect(body).toEqual({
      providers: [
        {
          id: 'platform-internal',
          issuer: app.url,
          title: 'Auth test',
          description: expect.any(String),
          scopes: ['openid', 'profile', 'username'],
          default_clients: [
            {
              id: 'editor',
              grant_types: ['authorization_code+pkce', 'refresh_token'],
              redirect_urls: ['https://editor.example.org/'],
            },
          ],
        },
      ],
    });
    // The issuer is discoverable as openEO requires (its discovery document at issuer + /.well-known/...).
    const discovery = (await (await fetch(`${body.providers[0]!.issuer}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
    };
    expect(discovery.issuer).toBe(app.url);
  });

  it('is empty on an instance without authentication', async () => {
    const { app } = await build();
    expect((await app.inject({ url: '/credentials/oidc' })).json()).toEqual({ providers: [] });
  });
});

describe("openEO's bearer form", () => {
  it('accepts oidc/platform-internal/<token> and refuses another provider id', async () => {
    const app = await usersApp();
    await app.addClient({ clientId: 'cli', clientAuthenticationMethods: ['none'], scopes: ['openid'] });
    const verifier = 'v'.repeat(43);
    const callback = await authorize(
      new Browser(app.url),
      `/oauth2/authorize?${new URLSearchParams({
        client_id: 'cli',
        redirect_uri: 'http://127.0.0.1:8765/callback',
        response_type: 'code',
        scope: 'openid',
        code_challenge: s256Challenge(verifier),
        code_challenge_method: 'S256',
      })}`,
      { username: 'f_job_manage', password: 'pw', consent: 'approve' },
    );
    const code = new URL(callback.location!).searchParams.get('code')!;
    const { body } = await postForm(app.url, '/oauth2/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:8765/callback',
      code_verifier: verifier,
    });
    const me = await fetch(`${app.url}/me`, {
      headers: { authorization: `Bearer oidc/platform-internal/${body.access_token}` },
    });
    expect(await me.json()).toMatchObject({ user_id: 'f_job_manage' });
    const job = await fetch(`${app.url}/process_graphs/a1b2c3`, {
      method: 'DELETE',
      headers: { authorization: `Bearer oidc/platform-internal/${body.access_token}` },
    });
    expect([401, 403]).not.toContain(job.status);
    const other = await fetch(`${app.url}/me`, { headers: { authorization: `Bearer oidc/egi/${body.access_token}` } });
    expect(other.status).toBe(401);
    expect(other.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });
});
