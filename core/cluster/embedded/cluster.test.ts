import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEMP_SUFFIX } from '../../files/durable.ts';
import { isApiError } from '../errors.ts';
import type { KindRef, KubeObject } from '../objects.ts';
import { openEmbeddedCluster } from './index.ts';

const kind: KindRef = {
  apiVersion: 'test.stratus.dev/v1',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
  statusSubresource: true,
};
const thing = (name: string, size = 1): KubeObject => ({
  apiVersion: kind.apiVersion,
  kind: kind.kind,
  metadata: { name },
  spec: { size },
});

describe('embedded cluster', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-embedded-'));
  });
  afterEach(async () => rm(dataDir, { recursive: true, force: true }));

  it('keeps objects and a monotonic resourceVersion across a restart, even after deleting the newest', async () => {
    const first = await openEmbeddedCluster({ dataDir });
    await first.create(kind, thing('a'));
    const b = await first.create(kind, thing('b'));
    await first.delete(kind, 'b', 'default');
    await first.close();

    const second = await openEmbeddedCluster({ dataDir });
    expect((await second.list(kind)).items.map((o) => o.metadata.name)).toEqual(['a']);
    const c = await second.create(kind, thing('c'));
    expect(Number(c.metadata.resourceVersion)).toBeGreaterThan(Number(b.metadata.resourceVersion) + 1);
    await second.close();
  });

  it('recovers from a crash mid-write: temporary files are dropped, complete objects load', async () => {
    const cluster = await openEmbeddedCluster({ dataDir });
    await cluster.create(kind, thing('a', 1));
    await cluster.close();
    const dir = join(dataDir, 'resources', 'test.stratus.dev', 'v1', 'things', 'default');
    // What a crash between write and rename leaves behind: a truncated temporary file beside the object.
    await writeFile(join(dir, `.a.json.4242${TEMP_SUFFIX}`), '{"apiVersion":"test.stratus.dev/v1","kind":"Th');
    await writeFile(join(dir, `.b.json.4243${TEMP_SUFFIX}`), '{"apiVer');
    const reopened = await openEmbeddedCluster({ dataDir });
    expect((await reopened.list(kind)).items.map((o) => [o.metadata.name, o.spec])).toEqual([['a', { size: 1 }]]);
    expect((await readdir(dir)).sort()).toEqual(['a.json']);
    await reopened.close();
  });

  it('writes a Secret readable by its owner only, other objects as the umask allows', async () => {
    const cluster = await openEmbeddedCluster({ dataDir });
    const secretKind: KindRef = {
      apiVersion: 'v1',
      kind: 'Secret',
      plural: 'secrets',
      namespaced: true,
      statusSubresource: false,
    };
    await cluster.create(secretKind, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: {} });
    await cluster.create(kind, thing('a'));
    await cluster.close();
    const mode = async (...path: string[]) => (await stat(join(dataDir, 'resources', ...path))).mode & 0o777;
    expect(await mode('core', 'v1', 'secrets', 'default', 's.json')).toBe(0o600);
    expect(await mode('test.stratus.dev', 'v1', 'things', 'default', 'a.json')).toBe(0o666 & ~process.umask());
  });

  it('answers 410 Gone for a watch older than the retained history, and after a restart', async () => {
    const cluster = await openEmbeddedCluster({ dataDir, historyLimit: 3 });
    const start = await cluster.list(kind);
    for (let i = 0; i < 5; i++) await cluster.create(kind, thing(`t${i}`));
    expect(() => cluster.watch(kind, { resourceVersion: start.resourceVersion })).toThrow(
      expect.objectContaining({ reason: 'Gone', code: 410 }),
    );
    const recent = await cluster.list(kind);
    await cluster.close();
    const reopened = await openEmbeddedCluster({ dataDir });
    let gone: unknown;
    try {
      reopened.watch(kind, { resourceVersion: String(Number(recent.resourceVersion) - 1) });
    } catch (err) {
      gone = err;
    }
    expect(isApiError(gone, 'Gone')).toBe(true);
    await reopened.close();
  });

  it('hands out copies: mutating a returned object does not change the store', async () => {
    const cluster = await openEmbeddedCluster({ dataDir });
    const created = await cluster.create(kind, thing('a'));
    (created.spec as { size: number }).size = 42;
    const got = await cluster.get(kind, 'a');
    (got!.spec as { size: number }).size = 43;
    expect((await cluster.get(kind, 'a'))?.spec).toEqual({ size: 1 });
    await cluster.close();
  });

  it('does not bump the resourceVersion for a write that changes nothing', async () => {
    const cluster = await openEmbeddedCluster({ dataDir });
    const created = await cluster.create(kind, thing('a'));
    const same = await cluster.update(kind, created);
    expect(same.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    await cluster.close();
  });

  it('makes concurrent writes durable before they settle, visible to readers only then, and watched in order', async () => {
    const cluster = await openEmbeddedCluster({ dataDir });
    const watch = cluster.watch(kind, { namespace: 'default', resourceVersion: '0' })[Symbol.asyncIterator]();
    const onDisk = async (name: string) =>
      (await readdir(join(dataDir, 'resources/test.stratus.dev/v1/things/default'))).includes(`${name}.json`);
    const names = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const created = await Promise.all(
      names.map(async (name) => {
        const object = await cluster.create(kind, thing(name));
        // Settled: on disk and readable.
        expect(await onDisk(name)).toBe(true);
        expect(await cluster.get(kind, name, 'default')).toEqual(object);
        return object;
      }),
    );
    const versions = created.map((o) => Number(o.metadata.resourceVersion));
    expect(new Set(versions).size).toBe(40);
    const seen: number[] = [];
    for (let i = 0; i < 40; i++) seen.push(Number((await watch.next()).value.object.metadata.resourceVersion));
    expect(seen).toEqual([...versions].sort((a, b) => a - b));
    // Compare-and-swap still holds between writes that go to disk together.
    const base = created[0]!;
    const races = await Promise.allSettled([2, 3, 4].map((size) => cluster.update(kind, { ...base, spec: { size } })));
    expect(races.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(races.filter((r) => r.status === 'rejected' && isApiError(r.reason, 'Conflict'))).toHaveLength(2);
    await cluster.close();
    const reopened = await openEmbeddedCluster({ dataDir });
    expect((await reopened.list(kind)).items).toHaveLength(40);
    await reopened.close();
  });

  it('stops writing after a failed disk write, and keeps what was durable before', async () => {
    const cluster = await openEmbeddedCluster({ dataDir });
    await cluster.create(kind, thing('kept'));
    // A file where the namespace's directory must go: the next object of another namespace cannot be written.
    await writeFile(join(dataDir, 'resources/test.stratus.dev/v1/things/elsewhere'), 'not a directory');
    const failed = cluster.create(kind, { ...thing('lost'), metadata: { name: 'lost', namespace: 'elsewhere' } });
    await expect(failed).rejects.toMatchObject({ reason: 'InternalError' });
    await expect(cluster.create(kind, thing('after'))).rejects.toMatchObject({ reason: 'InternalError' });
    expect((await cluster.list(kind)).items.map((o) => o.metadata.name)).toEqual(['kept']);
    await cluster.close();
    const reopened = await openEmbeddedCluster({ dataDir });
    expect((await reopened.list(kind)).items.map((o) => o.metadata.name)).toEqual(['kept']);
    await reopened.close();
  });

  it('rejects names that would escape the data directory', async () => {
    const cluster = await openEmbeddedCluster({ dataDir });
    for (const name of ['..', '../x', 'a/../../b', '.hidden']) {
      await expect(cluster.create(kind, thing(name))).rejects.toMatchObject({ reason: 'Invalid', code: 422 });
    }
    await expect(
      cluster.create(kind, { ...thing('a'), metadata: { name: 'a', namespace: '../x' } }),
    ).rejects.toMatchObject({ reason: 'Invalid' });
    await cluster.close();
  });
});
