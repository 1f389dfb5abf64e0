/**
 * Icechunk datasets end to end in embedded mode: the repository an ingestion writes is served raw at
 * /icechunk/{id}/ and reopened over HTTP by the Icechunk SDK's own fetch storage; /zarr/{id}/ serves the same
 * Zarr v3 keys to plain Zarr clients; a worker killed mid-run leaves readers on the previous snapshot.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Repository } from '@earthmover/icechunk';
import { createFetchStorage } from '@earthmover/icechunk/fetch-storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as zarr from 'zarrita';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { periodRange } from '../../core/periods/index.ts';
import { sampleProvider } from '../../core/providers/sample.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { ingestionKind } from '../../core/resources/ingestion/schema.ts';
import { validateObject } from '../../core/resources/registry.ts';
import { openRepository } from '../../core/stores/icechunk/repository.ts';
import { sampleDatasetManifest, startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { rawStatus as rawRequestStatus } from '../support/raw-request.ts';

const root = resolve(import.meta.dirname, '../..');
const BBOX: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];

let running: RunningEmbedded;
let dataDir: string;
let url: string;

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers });

interface Job {
  status: string;
  error?: { type: string };
}
const until = (id: string, statuses: string[]) =>
  eventually(
    async () => {
      const record = (await (await get(`/ingestions/jobs/${id}`)).json()) as Job;
      return statuses.includes(record.status) ? record : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );

const datasetStatus = async (id: string) => (await running.cluster.get<Dataset>(datasetKind, id, 'default'))!.status!;

const rawStatus = (path: string) => rawRequestStatus(url, path);

/** The sample source's values for a range of days, as the provider produces them. */
async function sampleValues(start: string, end: string): Promise<Float32Array[]> {
  const session = await sampleProvider.open({
    parameters: { seed: 42 },
    bbox: BBOX,
    signal: new AbortController().signal,
  });
  return Promise.all(periodRange('daily', start, end).map((p) => session.read(p)));
}

async function readCube(store: zarr.Readable, at: number) {
  const group = await zarr.open.v3(store, { kind: 'group' });
  const array = await zarr.open.v3(group.resolve('value'), { kind: 'array' });
  const plane = await zarr.get(array, [at, null, null]);
  return {
    attrs: group.attrs,
    shape: array.shape,
    plane: new Float32Array((plane.data as Float32Array).buffer.slice(0)),
  };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stratus-icechunk-api-'));
  process.env.STRATUS_WORKER_TASK_MODULES = resolve(root, 'test/fixtures/worker/ingestion-tasks.ts');
  running = await startEmbedded(dataDir, {
    examples: false,
    manifests: {
      'icechunk.yaml': sampleDatasetManifest({
        name: 'sample-ic',
        title: 'Sample as Icechunk',
        format: 'icechunk',
        run: 'sample-ic-q1',
        start: '2024-01-01',
        end: '2024-03-31',
      }),
    },
    // The crash test's retry starts after a second instead of a minute.
    operator: { runs: { backoff: { retryBaseSeconds: 1, retryCapSeconds: 1 } } },
  });
  url = running.url;
  await until('sample-ic-q1', ['successful']);
}, 90_000);

afterAll(async () => {
  await running?.stop();
  delete process.env.STRATUS_WORKER_TASK_MODULES;
  await rm(dataDir, { recursive: true, force: true });
});

describe('an Icechunk dataset', () => {
  it('records its version as a snapshot of the repository and links the repository', async () => {
    const status = await datasetStatus('sample-ic');
    const version = status.versions!.find((v) => v.id === status.currentVersion)!;
    expect(version).toMatchObject({ format: 'icechunk', path: 'datasets/sample-ic/icechunk' });
    const repo = await openRepository(join(dataDir, 'store', version.path));
    expect(await repo.lookupBranch('main')).toBe(version.snapshot);
    const record = (await (await get('/datasets/sample-ic')).json()) as { links: { rel: string; href: string }[] };
    expect(record.links).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rel: 'icechunk', href: '/icechunk/sample-ic/' }),
        expect.objectContaining({ rel: 'zarr', href: '/zarr/sample-ic/' }),
      ]),
    );
  });

  it('is reopened over HTTP by the Icechunk SDK (fetch storage) with the provider values', async () => {
    const repo = await Repository.open(createFetchStorage(`${url}/icechunk/sample-ic`));
    const session = await repo.readonlySession({ branch: 'main' });
    const expected = await sampleValues('2024-01-01', '2024-03-31');
    const first = await readCube(session.store as unknown as zarr.Readable, 0);
    expect(first.shape).toEqual([91, 62, 66]);
    expect(first.attrs).toMatchObject({ Conventions: 'CF-1.8', title: 'Sample as Icechunk' });
    expect(first.plane).toEqual(expected[0]);
    expect((await readCube(session.store as unknown as zarr.Readable, 90)).plane).toEqual(expected[90]);
  });

  it('serves the same Zarr v3 keys at /zarr/{id}/ to plain Zarr clients, with validators and listings', async () => {
    const store = new zarr.FetchStore(`${url}/zarr/sample-ic/`);
    const expected = await sampleValues('2024-03-31', '2024-03-31');
    expect((await readCube(store, 90)).plane).toEqual(expected[0]);

    const meta = await get('/zarr/sample-ic/value/zarr.json');
    expect(meta.status).toBe(200);
    expect(meta.headers.get('content-type')).toMatch(/^application\/json/);
    const etag = meta.headers.get('etag')!;
    expect((await get('/zarr/sample-ic/value/zarr.json', { 'if-none-match': etag })).status).toBe(304);
    const ranged = await get('/zarr/sample-ic/value/zarr.json', { range: 'bytes=0-9' });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe((await (await get('/zarr/sample-ic/value/zarr.json')).text()).slice(0, 10));

    const listing = (await (await get('/zarr/sample-ic/')).json()) as { entries: { name: string; type: string }[] };
    expect(listing.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'zarr.json', type: 'file' }),
        { name: 'value', type: 'directory' },
      ]),
    );
    expect((await get('/zarr/sample-ic/value/c/99/0/0')).status).toBe(404);
    expect((await get('/zarr/sample-ic/value/c')).status).toBe(200);
    expect((await get('/zarr/sample-ic/nothing/here')).status).toBe(404);
    // A chunk key under a node the snapshot does not have (it was a 500).
    expect((await get('/zarr/sample-ic/nope/c/0')).status).toBe(404);
    expect(await rawStatus('/zarr/sample-ic/value/../../x')).toBe(422);
    expect(await rawStatus('/zarr/sample-ic/%2e%2e/x')).toBe(422);
  });

  it('serves raw repository objects with validators, ranges, 404 and 422, and answers the S3 listing', async () => {
    const ref = await get('/icechunk/sample-ic/repo');
    expect(ref.status).toBe(200);
    const etag = ref.headers.get('etag')!;
    expect((await get('/icechunk/sample-ic/repo', { 'if-none-match': etag })).status).toBe(304);
    expect((await get('/icechunk/sample-ic/repo', { range: 'bytes=0-3' })).status).toBe(206);
    expect((await get('/icechunk/sample-ic/snapshots/NOSUCHSNAPSHOT')).status).toBe(404);
    expect((await get('/icechunk/sample/repo')).status).toBe(404);
    expect(await rawStatus('/icechunk/sample-ic/../sample/x')).toBe(422);

    const listed = await get('/?list-type=2&prefix=icechunk/sample-ic/snapshots/');
    expect(listed.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = await listed.text();
    const keys = [...xml.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]!);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(keys.every((k) => k.startsWith('icechunk/sample-ic/snapshots/'))).toBe(true);
    for (const key of keys) expect((await get(`/${key}`)).status).toBe(200);

    const page = await (await get('/?list-type=2&prefix=icechunk/sample-ic/snapshots/&max-keys=1')).text();
    expect(page).toContain('<IsTruncated>true</IsTruncated>');
    const token = /<NextContinuationToken>([^<]+)</.exec(page)![1]!;
    const next = await (
      await get(`/?list-type=2&prefix=icechunk/sample-ic/snapshots/&max-keys=1&continuation-token=${token}`)
    ).text();
    expect(/<Key>([^<]+)</.exec(next)![1]).toBe(keys[1]);
    expect((await get('/?list-type=2&prefix=elsewhere/')).status).toBe(422);
    expect((await get('/?list-type=2&prefix=icechunk/sample/')).status).toBe(404);
  });

  it('keeps readers on the previous snapshot when a worker dies mid-run, and the retry leaves no run branch', async () => {
    const before = await datasetStatus('sample-ic');
    const chunk = Buffer.from(await (await get('/zarr/sample-ic/value/c/0/0/0')).arrayBuffer());
    // Applied like a manifest (defaults filled in); the `crash-` name makes the first attempt kill itself.
    const run = validateObject({
      apiVersion: 'climate.stratus.dev/v1alpha1',
      kind: 'Ingestion',
      metadata: { name: 'crash-ic', namespace: 'default' },
      spec: {
        source: 'sample',
        datasetId: 'sample-ic',
        start: '2023-01-01',
        end: '2024-06-30',
        overwrite: true,
        maxAttempts: 2,
      },
    });
    if (!run.ok) throw new Error(JSON.stringify(run.issues));
    const applied = await running.cluster.create(ingestionKind, run.object);
    expect(applied.metadata.name).toBe('crash-ic');
    expect((await until('crash-ic', ['retrying'])).error).toMatchObject({ type: 'WorkerCrashed' });
    // The dead attempt committed blocks on its own branch; main and the dataset still name the old snapshot.
    const repoDir = join(dataDir, 'store', 'datasets', 'sample-ic', 'icechunk');
    expect(await (await openRepository(repoDir)).lookupBranch('main')).toBe(
      before.versions!.find((v) => v.id === before.currentVersion)!.snapshot,
    );
    expect((await datasetStatus('sample-ic')).currentVersion).toBe(before.currentVersion);
    expect(Buffer.from(await (await get('/zarr/sample-ic/value/c/0/0/0')).arrayBuffer()).equals(chunk)).toBe(true);

    await until('crash-ic', ['successful']);
    const after = await datasetStatus('sample-ic');
    const current = after.versions!.find((v) => v.id === after.currentVersion)!;
    expect(after.extent?.temporal).toEqual({ start: '2023-01-01', end: '2024-06-30' });
    const repo = await openRepository(repoDir);
    expect(await repo.listBranches()).toEqual(['main']);
    expect(await repo.lookupBranch('main')).toBe(current.snapshot);
    const expected = await sampleValues('2024-06-30', '2024-06-30');
    expect((await readCube(new zarr.FetchStore(`${url}/zarr/sample-ic/`), 546)).plane).toEqual(expected[0]);
  }, 180_000);

  it('syncs by appending on a branch of the current snapshot: complete blocks are kept, only new chunks are written', async () => {
    const repoDir = join(dataDir, 'store', 'datasets', 'sample-ic', 'icechunk');
    const before = await datasetStatus('sample-ic');
    const previous = before.versions!.find((v) => v.id === before.currentVersion)!;
    expect(before.extent?.temporal.end).toBe('2024-06-30');
    const firstBlock = Buffer.from(await (await get('/zarr/sample-ic/value/c/0/0/0')).arrayBuffer());
    const chunkObjects = async () => (await readdir(join(repoDir, 'chunks'))).length;
    const objectsBefore = await chunkObjects();

    const response = await fetch(`${url}/sync/sample-ic`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ end: '2024-07-31' }),
    });
    const body = (await response.json()) as { status: string; sync_detail: { action: string; delta_start: string } };
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ status: 'completed', sync_detail: { action: 'append', delta_start: '2024-07-01' } });

    const after = await datasetStatus('sample-ic');
    const current = after.versions!.find((v) => v.id === after.currentVersion)!;
    expect(after.extent?.temporal).toEqual({ start: '2023-01-01', end: '2024-07-31' });
    // The new snapshot descends from the previous one: an append, not a rewrite.
    const repo = await openRepository(repoDir);
    const ancestry = await repo.ancestry({ snapshotId: current.snapshot! });
    expect(ancestry.map((s) => s.id)).toContain(previous.snapshot);
    // 547 stored periods, 578 now, on one spatial chunk: the complete time blocks are kept, the last, partly filled
    // one is the one value chunk written; the coordinates are written again with the new time axis. The blocks are
    // as long as the store's first version chose (its chunk shape is kept by every union after it).
    const metadata = (await (await get('/zarr/sample-ic/value/zarr.json')).json()) as {
      chunk_grid: { configuration: { chunk_shape: number[] } };
    };
    const block = metadata.chunk_grid.configuration.chunk_shape[0]!;
    const diff = await repo.diff({ fromSnapshotId: previous.snapshot!, toSnapshotId: current.snapshot! });
    expect(diff.updatedChunks['/value']).toEqual([[Math.floor(547 / block), 0, 0]]);
    expect((await chunkObjects()) - objectsBefore).toBeLessThanOrEqual(3);
    expect(Buffer.from(await (await get('/zarr/sample-ic/value/c/0/0/0')).arrayBuffer()).equals(firstBlock)).toBe(true);
    const store = new zarr.FetchStore(`${url}/zarr/sample-ic/`);
    const [july31, june30] = await sampleValues('2024-06-30', '2024-07-31').then((v) => [v[31], v[0]]);
    expect((await readCube(store, 577)).plane).toEqual(july31);
    expect((await readCube(store, 546)).plane).toEqual(june30);
    expect(await repo.listBranches()).toEqual(['main']);
  }, 60_000);
});
