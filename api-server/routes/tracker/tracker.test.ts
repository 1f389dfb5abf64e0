import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../../core/cluster/port.ts';
import { programKind, type Program } from '../../../core/resources/program/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { trackedEntityTypeKind, type TrackedEntityType } from '../../../core/resources/tracked-entity-type/schema.ts';
import { build, type Built } from '../../test/build.ts';

const PROGRAM = 'IpHINAT79UW';
const TET = 'nEenWmSyUEp';
const JSON_PATCH = 'application/json-patch+json';

async function withMetadata(configText?: string): Promise<Built> {
  const built = await build(configText);
  await built.cluster.create<TrackedEntityType>(trackedEntityTypeKind, {
    apiVersion: API_VERSION,
    kind: 'TrackedEntityType',
    metadata: { name: 'person', namespace: 'default' },
    spec: { uid: TET, displayName: 'Person', enableChangeLog: true },
  });
  await built.cluster.create<Program>(programKind, {
    apiVersion: API_VERSION,
    kind: 'Program',
    metadata: { name: 'child-programme', namespace: 'default' },
    spec: {
      uid: PROGRAM,
      displayName: 'Child Programme',
      enableChangeLog: true,
      trackedEntityType: TET,
      programStage: 'A03MvHHogjR',
    },
  });
  return built;
}

const patch = (built: Built, url: string, body: unknown, contentType = JSON_PATCH) =>
  built.app.inject({
    method: 'PATCH',
    url,
    headers: { 'content-type': contentType },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

const stored = async (built: Built, name = 'child-programme') =>
  (await built.cluster.get<Program>(programKind, name, 'default'))!.spec.enableChangeLog;

const replace = (value: unknown) => [{ op: 'replace', path: '/enableChangeLog', value }];

describe('GET /api/programs/{uid} and /api/trackedEntityTypes/{uid}', () => {
  it('answer the object found by spec.uid, as DHIS2 shows it', async () => {
    const built = await withMetadata();
    const program = await built.app.inject({ url: `/api/programs/${PROGRAM}` });
    expect(program.statusCode).toBe(200);
    expect(program.json()).toEqual({
      id: PROGRAM,
      displayName: 'Child Programme',
      enableChangeLog: true,
      programType: 'WITH_REGISTRATION',
      trackedEntityType: { id: TET },
      programStages: [{ id: 'A03MvHHogjR' }],
    });
    const type = await built.app.inject({ url: `/api/trackedEntityTypes/${TET}` });
    expect(type.json()).toEqual({ id: TET, displayName: 'Person', enableChangeLog: true });
  });

  it("default enableChangeLog to DHIS2's false, and call a program without tracked entity type an event program", async () => {
    const built = await build();
    await built.cluster.create(programKind, {
      apiVersion: API_VERSION,
      kind: 'Program',
      metadata: { name: 'events', namespace: 'default' },
      spec: { uid: 'eBAyeGv0exc' },
    });
    const program = await built.app.inject({ url: '/api/programs/eBAyeGv0exc' });
    expect(program.json()).toEqual({ id: 'eBAyeGv0exc', enableChangeLog: false, programType: 'WITHOUT_REGISTRATION' });
  });

  it('answer 404 for a uid no object has, whatever its case or form', async () => {
    const built = await withMetadata();
    for (const url of [
      `/api/programs/${PROGRAM.toLowerCase()}`,
      '/api/programs/child-programme',
      `/api/programs/${TET}`,
    ]) {
      const response = await built.app.inject({ url });
      expect([response.statusCode, response.json()], url).toEqual([404, { detail: expect.stringMatching(/uid/) }]);
    }
    const response = await patch(built, '/api/trackedEntityTypes/Xxxxxxxxxxx', replace(false));
    expect(response.statusCode).toBe(404);
  });
});

describe('PATCH /api/programs/{uid} and /api/trackedEntityTypes/{uid}', () => {
  it('switch enableChangeLog with replace and add, answering the DHIS2 ObjectReport message', async () => {
    const built = await withMetadata();
    const off = await patch(built, `/api/programs/${PROGRAM}`, replace(false));
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({
      httpStatus: 'OK',
      httpStatusCode: 200,
      status: 'OK',
      response: {
        responseType: 'ObjectReport',
        uid: PROGRAM,
        klass: 'org.hisp.dhis.program.Program',
        errorReports: [],
      },
    });
    expect(await stored(built)).toBe(false);
    expect((await built.app.inject({ url: `/api/programs/${PROGRAM}` })).json()).toMatchObject({
      enableChangeLog: false,
    });

    const on = await patch(built, `/api/programs/${PROGRAM}`, [{ op: 'add', path: '/enableChangeLog', value: true }]);
    expect(on.statusCode).toBe(200);
    expect(await stored(built)).toBe(true);

    const type = await patch(built, `/api/trackedEntityTypes/${TET}`, replace(false));
    expect(type.json()).toMatchObject({ response: { klass: 'org.hisp.dhis.trackedentity.TrackedEntityType' } });
    const tet = await built.cluster.get<TrackedEntityType>(trackedEntityTypeKind, 'person', 'default');
    expect(tet?.spec.enableChangeLog).toBe(false);
    expect((await built.app.inject({ url: `/api/trackedEntityTypes/${TET}` })).json()).toMatchObject({
      enableChangeLog: false,
    });
    // Back on, then the same value again: 200 without a write.
    await patch(built, `/api/trackedEntityTypes/${TET}`, replace(true));
    const before = (await built.cluster.get<TrackedEntityType>(trackedEntityTypeKind, 'person', 'default'))!;
    expect((await patch(built, `/api/trackedEntityTypes/${TET}`, replace(true))).statusCode).toBe(200);
    const after = (await built.cluster.get<TrackedEntityType>(trackedEntityTypeKind, 'person', 'default'))!;
    expect([before.spec.enableChangeLog, after.metadata.resourceVersion]).toEqual([
      true,
      before.metadata.resourceVersion,
    ]);
  });

  it('honour test operations: a passing test lets the patch apply, a failing one fails it whole (409, nothing changed)', async () => {
    const built = await withMetadata();
    const passing = await patch(built, `/api/programs/${PROGRAM}`, [
      { op: 'test', path: '/enableChangeLog', value: true },
      { op: 'replace', path: '/enableChangeLog', value: false },
      { op: 'test', path: '/enableChangeLog', value: false },
    ]);
    expect(passing.statusCode).toBe(200);
    expect(await stored(built)).toBe(false);

    const failing = await patch(built, `/api/programs/${PROGRAM}`, [
      { op: 'replace', path: '/enableChangeLog', value: true },
      { op: 'test', path: '/enableChangeLog', value: false },
    ]);
    expect(failing.statusCode).toBe(409);
    expect(failing.json()).toEqual({
      httpStatus: 'Conflict',
      httpStatusCode: 409,
      status: 'ERROR',
      message: expect.stringMatching(/Operation 1 tests enableChangeLog = false, but it is true/),
      response: {
        errorReports: [{ message: expect.any(String), errorCode: 'PatchTestFailed', errorProperty: 'enableChangeLog' }],
      },
    });
    expect(await stored(built)).toBe(false);
  });

  it('refuse other paths, other operations and non-boolean values with 409 PatchRefused, each problem reported, nothing changed', async () => {
    const built = await withMetadata();
    const rv = (await built.cluster.get<Program>(programKind, 'child-programme', 'default'))!.metadata.resourceVersion;
    const refusals: [unknown, string[]][] = [
      [[{ op: 'replace', path: '/displayName', value: 'x' }], ['path', 'value']],
      [[{ op: 'replace', path: '/enableChangeLog/0', value: false }], ['path']],
      [[{ op: 'replace', path: '/EnableChangeLog', value: false }], ['path']],
      [[{ op: 'remove', path: '/enableChangeLog' }], ['op', 'value']],
      [[{ op: 'move', from: '/enableChangeLog', path: '/enableChangeLog', value: true }], ['op']],
      [[{ op: 'copy', from: '/displayName', path: '/enableChangeLog', value: true }], ['op']],
      [replace('false'), ['value']],
      [replace(0), ['value']],
      [replace(null), ['value']],
      [[{ op: 'test', path: '/enableChangeLog', value: 'true' }], ['value']],
      [[{ op: 'replace', path: '/enableChangeLog' }], ['value']],
      // A good operation does not carry a bad one: the whole patch is refused.
      [[...replace(false), { op: 'replace', path: '/uid', value: false }], ['path']],
      [{ op: 'replace', path: '/enableChangeLog', value: false }, ['body']],
      [[false], ['body']],
      ['{"op": ', ['body']],
    ];
    for (const [body, properties] of refusals) {
      const response = await patch(built, `/api/programs/${PROGRAM}`, body);
      const what = JSON.stringify(body);
      expect(response.statusCode, what).toBe(409);
      const json = response.json() as { status: string; response: { errorReports: Record<string, unknown>[] } };
      expect(json.status, what).toBe('ERROR');
      expect(
        json.response.errorReports.map((r) => [r.errorCode, r.errorProperty]),
        what,
      ).toEqual(properties.map((p) => ['PatchRefused', p]));
    }
    const after = (await built.cluster.get<Program>(programKind, 'child-programme', 'default'))!;
    expect([after.spec.enableChangeLog, after.metadata.resourceVersion]).toEqual([true, rv]);
  });

  it('take only application/json-patch+json (415 with the native error body otherwise)', async () => {
    const built = await withMetadata();
    for (const type of ['application/json', 'application/merge-patch+json', 'text/plain']) {
      const response = await patch(built, `/api/programs/${PROGRAM}`, replace(false), type);
      expect([response.statusCode, response.json()], type).toEqual([
        415,
        { detail: expect.stringContaining(JSON_PATCH) },
      ]);
    }
    const bare = await built.app.inject({ method: 'PATCH', url: `/api/programs/${PROGRAM}` });
    expect(bare.statusCode).toBe(415);
    const withCharset = await patch(built, `/api/programs/${PROGRAM}`, replace(false), `${JSON_PATCH}; charset=utf-8`);
    expect(withCharset.statusCode).toBe(200);
  });

  it('are refused on a read-only instance, while GET still answers', async () => {
    const built = await withMetadata('instance.name = Test\ninstance.bbox = 0,0,1,1\nread_only = on');
    for (const url of [`/api/programs/${PROGRAM}`, `/api/trackedEntityTypes/${TET}`]) {
      const response = await patch(built, url, replace(false));
      expect([response.statusCode, response.json()], url).toEqual([
        403,
        expect.objectContaining({ id: 'read-only', code: 'PermissionsInsufficient' }),
      ]);
    }
    expect(await stored(built)).toBe(true);
    expect((await built.app.inject({ url: `/api/programs/${PROGRAM}` })).statusCode).toBe(200);
  });

  it('apply by compare-and-swap: of concurrent test-then-replace patches exactly one wins', async () => {
    const built = await withMetadata();
    const guarded = [
      { op: 'test', path: '/enableChangeLog', value: true },
      { op: 'replace', path: '/enableChangeLog', value: false },
    ];
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => patch(built, `/api/programs/${PROGRAM}`, guarded)),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(await stored(built)).toBe(false);
  });

  it('re-read and re-test when the object changed between read and write', async () => {
    const built = await withMetadata();
    // A writer that switches the program off just before the route's first write lands.
    const cluster = built.cluster as Cluster;
    const original = cluster.patch.bind(cluster);
    let interfered = false;
    cluster.patch = (async (...args: Parameters<Cluster['patch']>) => {
      if (!interfered) {
        interfered = true;
        await original(
          programKind,
          'child-programme',
          { type: 'merge', body: { spec: { enableChangeLog: false } } },
          'default',
        );
      }
      return original(...args);
    }) as Cluster['patch'];

    const response = await patch(built, `/api/programs/${PROGRAM}`, [
      { op: 'test', path: '/enableChangeLog', value: true },
      { op: 'replace', path: '/enableChangeLog', value: false },
    ]);
    // Its first write was stale (409 from the store); on the fresh read the test no longer holds.
    expect(interfered).toBe(true);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ response: { errorReports: [{ errorCode: 'PatchTestFailed' }] } });
    expect(await stored(built)).toBe(false);
  });
});
