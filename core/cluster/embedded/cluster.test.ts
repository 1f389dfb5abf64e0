import { appendFile, cp, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEMP_SUFFIX } from '../../files/durable.ts';
import { isApiError } from '../errors.ts';
import type { KindRef, KubeObject } from '../objects.ts';
import { openEmbeddedCluster } from './index.ts';
import { encodeEntry, readJournal } from './journal.ts';

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
    const journaled = async (name: string) =>
      (await readJournal(join(dataDir, 'journal'))).entries.some((r) => r.name === name);
    const names = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const created = await Promise.all(
      names.map(async (name) => {
        const object = await cluster.create(kind, thing(name));
        // Settled: on disk and readable.
        expect(await journaled(name)).toBe(true);
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
    // Every write seals the journal's segment, so the next one must create a new segment file.
    const cluster = await openEmbeddedCluster({ dataDir, journalSegmentBytes: 1 });
    await cluster.create(kind, thing('kept'));
    const segments = (await readdir(join(dataDir, 'journal'))).sort();
    const next = `${String(Number(segments.at(-1)!.slice(0, 12)) + 1).padStart(12, '0')}.wal`;
    // A directory where that segment must go: it cannot be created, as on a full or failing disk.
    await mkdir(join(dataDir, 'journal', next));
    const failed = cluster.create(kind, thing('lost'));
    await expect(failed).rejects.toMatchObject({ reason: 'InternalError' });
    await expect(cluster.create(kind, thing('after'))).rejects.toMatchObject({ reason: 'InternalError' });
    expect((await cluster.list(kind)).items.map((o) => o.metadata.name)).toEqual(['kept']);
    await cluster.close();
    await rm(join(dataDir, 'journal', next), { recursive: true });
    const reopened = await openEmbeddedCluster({ dataDir });
    expect((await reopened.list(kind)).items.map((o) => o.metadata.name)).toEqual(['kept']);
    await reopened.close();
  });

  it('recovers every acknowledged write after a crash, across checkpoints, dropping a torn last append', async () => {
    // Small segments: checkpoints run while writes go on, and the crash finds some segments not yet checkpointed.
    const cluster = await openEmbeddedCluster({ dataDir, journalSegmentBytes: 2048 });
    const expected = new Map<string, unknown>();
    for (let round = 0; round < 6; round++) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const name = `t${i}`;
          if (round === 0) await cluster.create(kind, thing(name, 0));
          else if (round === 3 && i % 4 === 0) await cluster.delete(kind, name, 'default');
          else if (round === 4 && i % 4 === 0) await cluster.create(kind, thing(name, 40));
          else await cluster.patch(kind, name, { type: 'merge', body: { spec: { size: round * 100 + i } } }, 'default');
        }),
      );
    }
    for (const o of (await cluster.list(kind)).items) expected.set(o.metadata.name, o);
    // The process dies now: what is on disk is whatever the journal and the object files hold at this moment.
    const crashed = await mkdtemp(join(tmpdir(), 'stratus-embedded-crash-'));
    await cp(dataDir, crashed, { recursive: true });
    const segments = (await readdir(join(crashed, 'journal'))).sort();
    expect(segments.length).toBeGreaterThan(0);
    // Checkpoints ran meanwhile: some objects are in their files already.
    expect((await readdir(join(crashed, 'resources/test.stratus.dev/v1/things/default'))).length).toBeGreaterThan(0);
    // A group that was being appended when the process died, never acknowledged: a frame cut short.
    const torn = encodeEntry({ kind: 'test.stratus.dev/v1/things', namespace: 'default', name: 'torn', rv: 1e6 });
    await appendFile(join(crashed, 'journal', segments.at(-1)!), torn.subarray(0, torn.length - 3));
    try {
      const reopened = await openEmbeddedCluster({ dataDir: crashed });
      const items = (await reopened.list(kind)).items;
      expect(new Map(items.map((o) => [o.metadata.name, o]))).toEqual(expected);
      expect(items.find((o) => o.metadata.name === 't4')?.spec).toEqual({ size: 500 + 4 });
      // Recovery checkpointed what it replayed, and the next version is newer than any before the crash.
      const next = await reopened.create(kind, thing('after'));
      const newest = Math.max(...items.map((o) => Number(o.metadata.resourceVersion)));
      expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(newest);
      await reopened.close();
      expect(await readdir(join(crashed, 'journal'))).toEqual([]);
      const files = await readdir(join(crashed, 'resources/test.stratus.dev/v1/things/default'));
      expect(files.sort()).toEqual([...expected.keys(), 'after'].map((n) => `${n}.json`).sort());
    } finally {
      await cluster.close();
      await rm(crashed, { recursive: true, force: true });
    }
  });

  it('refuses to open when a journal segment before the last is damaged', async () => {
    const cluster = await openEmbeddedCluster({ dataDir });
    await cluster.create(kind, thing('a'));
    await cluster.close();
    const entry = (name: string, rv: number) =>
      encodeEntry({ kind: 'test.stratus.dev/v1/things', namespace: 'default', name, rv, text: '{}' });
    const damaged = Buffer.concat([entry('b', 10), entry('c', 11)]);
    damaged[damaged.length - 2]! ^= 0xff;
    // Two segments as a crash leaves them: the first one damaged in its last frame, which was acknowledged.
    await writeFile(join(dataDir, 'journal', '000000000007.wal'), damaged);
    await writeFile(join(dataDir, 'journal', '000000000008.wal'), entry('d', 12));
    await expect(openEmbeddedCluster({ dataDir })).rejects.toThrow(/000000000007\.wal is damaged before its end/);
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
