/**
 * DHIS2's metadata import `POST /api/metadata` over real HTTP: the strategies, atomicMode, dryRun and the import
 * report for OAuth2 clients (judged by the client rules) and the tracker changelog switches; authorizations and
 * consents refused; who may import.
 */
import { describe, expect, it } from 'vitest';
import { oauth2ClientKind, type OAuth2Client } from '../../../core/resources/oauth2-client/schema.ts';
import { programKind, type Program } from '../../../core/resources/program/schema.ts';
import { REGISTRAR_CLIENT_ID } from '../../../core/auth/clients/registrar.ts';
import type { KubeObject } from '../../../core/cluster/objects.ts';
import { startAuthApp, type AuthApp } from '../../../test/support/auth-app.ts';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const USERS = { admin: 'admin:admin pw', root: 'root:root pw', reader: 'reader:reader pw' };

async function setup(options: { authorizationServer?: boolean } = {}): Promise<AuthApp> {
  const app = await startAuthApp(options);
  await app.addUser('admin', 'admin pw', { authorities: ['F_OAUTH2_CLIENT_MANAGE'] });
  await app.addUser('root', 'root pw', { authorities: ['ALL'] });
  await app.addUser('reader', 'reader pw', { authorities: ['F_DATASET_MANAGE'] });
  return app;
}

interface ImportAnswer {
  status: number;
  body: {
    status?: string;
    response?: {
      status: string;
      stats: Record<string, number>;
      typeReports: {
        klass: string;
        stats: Record<string, number>;
        objectReports: { index: number; uid?: string; errorReports: Record<string, unknown>[] }[];
      }[];
    };
  } & Record<string, unknown>;
}

async function importMetadata(
  app: AuthApp,
  body: unknown,
  query = '',
  as: keyof typeof USERS | null = 'admin',
): Promise<ImportAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (as) headers.authorization = `Basic ${Buffer.from(USERS[as]).toString('base64')}`;
  const response = await fetch(`${app.url}/api/metadata${query}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as ImportAnswer['body'] };
}

const client = (clientId: string, extra: Record<string, unknown> = {}) => ({
  clientId,
  clientSecret: `${clientId} secret`,
  clientAuthenticationMethods: 'client_secret_basic',
  authorizationGrantTypes: 'authorization_code,refresh_token',
  redirectUris: REDIRECT_URI,
  scopes: 'openid',
  ...extra,
});

async function storedClients(app: AuthApp): Promise<(OAuth2Client & KubeObject)[]> {
  const { items } = await app.cluster.list<OAuth2Client & KubeObject>(oauth2ClientKind, { namespace: 'default' });
  return items.filter((c) => c.spec.clientId !== REGISTRAR_CLIENT_ID);
}

describe('importing OAuth2 clients', () => {
  it('with atomicMode ALL stores nothing when the object at index 3 breaks a rule, and names it', async () => {
    const app = await setup();
    const body = {
      oAuth2Clients: [client('one'), client('two'), client('three'), client('four', { scopes: 'openid,client.admin' })],
    };
    const answer = await importMetadata(app, body);
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ httpStatusCode: 409, status: 'ERROR' });
    expect(answer.body.response!.stats).toEqual({ created: 0, updated: 0, deleted: 0, ignored: 4, total: 4 });
    const [type] = answer.body.response!.typeReports;
    expect(type!.klass).toBe('org.hisp.dhis.security.oauth2.client.Dhis2OAuth2Client');
    expect(type!.objectReports).toEqual([
      {
        klass: type!.klass,
        index: 3,
        errorReports: [
          {
            message: expect.stringContaining("'client.admin'"),
            mainKlass: type!.klass,
            errorCode: 'E4000',
            errorProperty: 'scopes',
            errorProperties: ['scopes'],
          },
        ],
      },
    ]);
    expect(await storedClients(app)).toEqual([]);
  });

  it('with atomicMode NONE stores the good objects and reports the bad', async () => {
    const app = await setup();
    const body = { oAuth2Clients: [client('one'), client('two', { authorizationGrantTypes: 'client_credentials' })] };
    const answer = await importMetadata(app, body, '?atomicMode=NONE');
    expect(answer.status).toBe(200);
    expect(answer.body.response!.status).toBe('WARNING');
    expect(answer.body.response!.stats).toEqual({ created: 1, updated: 0, deleted: 0, ignored: 1, total: 2 });
    expect(answer.body.response!.typeReports[0]!.objectReports).toMatchObject([
      { index: 1, errorReports: [{ errorCode: 'E4000', errorProperty: 'authorizationGrantTypes' }] },
    ]);
    expect((await storedClients(app)).map((c) => c.spec.clientId)).toEqual(['one']);
  });

  it('with dryRun reports what would happen and stores nothing', async () => {
    const app = await setup();
    const answer = await importMetadata(app, { oAuth2Clients: [client('one'), client('two')] }, '?dryRun=true');
    expect(answer.status).toBe(200);
    expect(answer.body.response).toMatchObject({
      status: 'OK',
      importParams: { dryRun: true },
      stats: { created: 2, updated: 0, deleted: 0, ignored: 0, total: 2 },
    });
    expect(await storedClients(app)).toEqual([]);
  });

  it('keeps the uid, updates by it, refuses by strategy (E5000, E5001), and deletes', async () => {
    const app = await setup();
    const id = 'AbCdEfGhIj1';
    expect((await importMetadata(app, { oAuth2Clients: [{ id, ...client('one') }] })).status).toBe(200);
    const [stored] = await storedClients(app);
    expect(stored!.metadata.labels?.['climate.stratus.dev/uid']).toBe(id);

    const created = await importMetadata(app, { oAuth2Clients: [{ id, ...client('one') }] }, '?importStrategy=CREATE');
    expect(created.body.response!.typeReports[0]!.objectReports[0]!.errorReports).toMatchObject([
      { errorCode: 'E5000', errorProperty: 'id' },
    ]);
    const missing = await importMetadata(
      app,
      { oAuth2Clients: [{ id: 'ZzZzZzZzZz9', ...client('two') }] },
      '?importStrategy=UPDATE',
    );
    expect(missing.body.response!.typeReports[0]!.objectReports[0]).toMatchObject({
      index: 0,
      uid: 'ZzZzZzZzZz9',
      errorReports: [{ errorCode: 'E5001' }],
    });
    const badId = await importMetadata(app, { oAuth2Clients: [{ id: 'not a uid', ...client('two') }] });
    expect(badId.body.response!.typeReports[0]!.objectReports[0]!.errorReports).toMatchObject([
      { errorCode: 'E4014', errorProperty: 'id' },
    ]);

    // An update without clientSecret keeps the stored one: the rule that a secret method needs one holds.
    const { clientSecret: _secret, ...withoutSecret } = client('one', { name: 'Renamed' });
    const updated = await importMetadata(app, { oAuth2Clients: [{ id, ...withoutSecret }] });
    expect(updated.body.response!.stats).toMatchObject({ updated: 1, total: 1 });
    expect((await storedClients(app))[0]!.spec.name).toBe('Renamed');

    const deleted = await importMetadata(app, { oAuth2Clients: [{ id }] }, '?importStrategy=DELETE');
    expect(deleted.body.response!.stats).toMatchObject({ deleted: 1, total: 1 });
    expect(await storedClients(app)).toEqual([]);
  });

  it('refuses two objects of one client id, and a new confidential client without its secret', async () => {
    const app = await setup();
    const { clientSecret: _secret, ...withoutSecret } = client('two');
    const answer = await importMetadata(app, { oAuth2Clients: [client('one'), client('one'), withoutSecret] });
    const reports = answer.body.response!.typeReports[0]!.objectReports;
    expect(reports.map((r) => [r.index, r.errorReports.map((e) => e.errorProperty)])).toEqual([
      [0, ['clientId']],
      [1, ['clientId']],
      [2, ['clientSecret']],
    ]);
    expect(reports[0]!.errorReports[0]!.message).toContain('object 1 of the import');
  });

  it('keeps a client exported without PKCE as stored, which the client API refuses to create', async () => {
    const app = await setup();
    const legacy = client('legacy', {
      clientSettings: JSON.stringify({
        'settings.client.require-proof-key': false,
        'settings.client.require-authorization-consent': true,
      }),
    });
    const answer = await importMetadata(app, { oAuth2Clients: [legacy] });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await storedClients(app))[0]!.spec.clientSettings).toEqual({
      requireProofKey: false,
      requireAuthorizationConsent: true,
    });
    const viaApi = await fetch(`${app.url}/api/oAuth2Clients`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(USERS.admin).toString('base64')}`,
      },
      body: JSON.stringify({ ...legacy, clientId: 'another' }),
    });
    expect(viaApi.status).toBe(409);
  });

  it('refuses the internal registrar client', async () => {
    const app = await setup();
    const answer = await importMetadata(app, { oAuth2Clients: [client('system-dcr-registrar-client')] });
    expect(answer.body.response!.typeReports[0]!.objectReports[0]!.errorReports).toMatchObject([
      { errorCode: 'E4000', errorProperty: 'clientId' },
    ]);
  });
});

describe('what the import refuses', () => {
  it('refuses authorizations and consents with a report per object (spec 2), and stores nothing else', async () => {
    const app = await setup();
    const answer = await importMetadata(app, {
      oAuth2Clients: [client('one')],
      oAuth2Authorizations: [{ id: 'a' }, { id: 'b' }],
      oAuth2AuthorizationConsents: [{ principalName: 'ada' }],
    });
    expect(answer.status).toBe(409);
    type Reports = NonNullable<ImportAnswer['body']['response']>['typeReports'][number]['objectReports'];
    const byKlass: Record<string, Reports> = Object.fromEntries(
      answer.body.response!.typeReports.map((t) => [t.klass.split('.').pop(), t.objectReports]),
    );
    expect(byKlass.Dhis2OAuth2Authorization!.map((r) => [r.index, r.errorReports[0]!.errorCode])).toEqual([
      [0, 'E3000'],
      [1, 'E3000'],
    ]);
    expect(byKlass.Dhis2OAuth2AuthorizationConsent).toHaveLength(1);
    expect(await storedClients(app)).toEqual([]);
  });

  it('refuses a list of a type it does not import', async () => {
    const app = await setup();
    const answer = await importMetadata(app, { system: { version: '2.41' }, dataElements: [{ id: 'x' }] });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({
      response: { errorReports: [{ errorCode: 'E4000', errorProperty: 'dataElements' }] },
    });
  });

  it('needs F_OAUTH2_CLIENT_MANAGE for clients and a superuser for programs', async () => {
    const app = await setup();
    expect((await importMetadata(app, { oAuth2Clients: [client('one')] }, '', null)).status).toBe(401);
    expect((await importMetadata(app, { oAuth2Clients: [client('one')] }, '', 'reader')).status).toBe(403);
    expect((await importMetadata(app, { programs: [] }, '', 'admin')).status).toBe(403);
    expect((await importMetadata(app, { oAuth2Clients: [client('one')] }, '', 'root')).status).toBe(200);
  });

  it('has no clients to import when the authorization server is off', async () => {
    const app = await setup({ authorizationServer: false });
    expect((await importMetadata(app, { oAuth2Clients: [client('one')] }, '', 'root')).status).toBe(404);
    expect((await importMetadata(app, { programs: [] }, '', 'root')).status).toBe(200);
  });
});

describe('importing the changelog switches', () => {
  it('switches the changelog of an existing program, and neither creates nor deletes one', async () => {
    const app = await setup();
    const uid = 'PrOgRaM0001';
    await app.cluster.create(programKind, {
      apiVersion: programKind.apiVersion,
      kind: 'Program',
      metadata: { name: 'births', namespace: 'default' },
      spec: { uid, enableChangeLog: false },
    } as Program & KubeObject);
    const answer = await importMetadata(
      app,
      {
        programs: [
          { id: uid, enableChangeLog: true },
          { id: 'NeWpRoGrAm1', enableChangeLog: true },
        ],
      },
      '?atomicMode=NONE',
      'root',
    );
    expect(answer.body.response).toMatchObject({
      status: 'WARNING',
      stats: { updated: 1, ignored: 1, total: 2 },
      typeReports: [
        {
          klass: 'org.hisp.dhis.program.Program',
          objectReports: [{ index: 1, errorReports: [{ errorCode: 'E3000' }] }],
        },
      ],
    });
    const stored = await app.cluster.get<Program & KubeObject>(programKind, 'births', 'default');
    expect(stored!.spec.enableChangeLog).toBe(true);
  });
});
