/**
 * Sync end to end in embedded mode: the API and the operator over one embedded cluster, real worker processes,
 * and a source whose newest period advances (its availability lag is shortened by the test). Values are read
 * back through /zarr.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../api-server/app.ts';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import { parseInstanceConfig } from '../../core/config/index.ts';
import { parsePeriod } from '../../core/periods/index.ts';
import { sampleProvider } from '../../core/providers/sample.ts';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../core/resources/registry.ts';
import { ChildProcessRunner } from '../../operator/jobs/child-process-runner.ts';
import { startOperator, type RunningOperator } from '../../operator/manager.ts';
import { eventually } from '../support/eventually.ts';

const BBOX: [number, number, number, number] = [0, 0, 1, 1];
const SOURCE = 'advancing';
const HOUR = 3_600_000;

let dataDir: string;
let cluster: EmbeddedCluster;
let operator: RunningOperator;
let app: Awaited<ReturnType<typeof buildApp>>;

/** The lag (hours) at which the source's newest complete day is `day`, for the next hour at least. */
const lagFor = (day: string) =>
  Math.floor((Date.now() - (parsePeriod('daily', day).start.getTime() + 86_400_000)) / HOUR);

async function publishThrough(day: string) {
  await cluster.patch(
    dataSourceKind,
    SOURCE,
    { type: 'merge', body: { spec: { sync: { availability: { rule: 'lag-hours', hours: lagFor(day) } } } } },
    'default',
  );
}

/** A JSON body as the assertions read it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by matchers, not types
type Body = Record<string, any>;

const inject = async (method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = {}) => {
  const res = await app.inject({ method, url, payload: payload as Record<string, unknown>, headers });
  return { status: res.statusCode, body: res.json() as Body, headers: res.headers };
};

/** The float32 values of one data chunk served at /zarr (Zarr v2, zlib). */
async function zarrChunk(key: string): Promise<Float32Array> {
  const res = await app.inject({ url: `/zarr/${SOURCE}/value/${key}` });
  expect(res.statusCode).toBe(200);
  const bytes = inflateSync(res.rawPayload);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

/** What the sample provider gives for `day` on the instance grid. */
async function expectedPlane(day: string): Promise<Float32Array> {
  const session = await sampleProvider.open({ parameters: {}, bbox: BBOX, signal: new AbortController().signal });
  return session.read(parsePeriod('daily', day));
}

const datasetStatus = async () => (await cluster.get<Dataset>(datasetKind, SOURCE, 'default'))!.status!;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stratus-sync-'));
  cluster = await openEmbeddedCluster({ dataDir: join(dataDir, 'cluster') });
  process.env.STRATUS_WORKER_TASK_MODULES = resolve(import.meta.dirname, '../fixtures/worker/ingestion-tasks.ts');
  process.env.STRATUS_TEST_DIR = dataDir;
  const storageRoot = join(dataDir, 'store');
  operator = startOperator({
    cluster,
    registry: new Registry(),
    logger: pino({ level: 'silent' }),
    instance: { storageRoot, bbox: BBOX },
    jobs: new ChildProcessRunner({ cancelGraceMs: 2_000 }),
    runs: { backoff: { retryBaseSeconds: 0.3, retryCapSeconds: 0.6 } },
  });
  app = await buildApp({
    cluster,
    config: parseInstanceConfig('instance.name = Sync test\ninstance.bbox = 0,0,1,1', 'test'),
    storageRoot,
    logger: pino({ level: 'error' }),
  });
  await cluster.create(dataSourceKind, {
    apiVersion: API_VERSION,
    kind: 'DataSource',
    metadata: { name: SOURCE, namespace: 'default' },
    spec: {
      datasetName: 'Advancing sample',
      itemType: 'coverage',
      variable: 'value',
      periodType: 'daily',
      provider: { name: 'sample' },
      sync: { kind: 'temporal', availability: { rule: 'lag-hours', hours: lagFor('2024-01-10') } },
    },
  });
});

afterAll(async () => {
  await app?.close();
  await operator?.stop();
  await cluster?.close();
  delete process.env.STRATUS_WORKER_TASK_MODULES;
  delete process.env.STRATUS_TEST_DIR;
  await rm(dataDir, { recursive: true, force: true });
});

describe('sync end to end (embedded)', () => {
  it('ingests, plans, appends exactly the new periods, then is up to date', async () => {
    const ingested = await inject('POST', '/ingestions', {
      dataset_id: SOURCE,
      start: '2024-01-01',
      end: '2024-01-10',
    });
    expect(ingested.body).toMatchObject({ status: 'successful' });
    expect((await inject('GET', `/sync/${SOURCE}/plan`)).body).toMatchObject({
      action: 'no_op',
      reason: 'up_to_date',
      target_end: '2024-01-10',
      target_end_source: 'availability',
    });

    await publishThrough('2024-01-13');
    expect((await inject('GET', `/sync/${SOURCE}/plan`)).body).toMatchObject({
      action: 'append',
      reason: 'new_periods_available',
      current_start: '2024-01-01',
      current_end: '2024-01-10',
      delta_start: '2024-01-11',
      delta_end: '2024-01-13',
    });

    const synced = await inject('POST', `/sync/${SOURCE}`, {});
    expect(synced.status).toBe(200);
    expect(synced.body).toMatchObject({
      status: 'completed',
      dataset: { dataset_id: SOURCE, extent: { temporal: { start: '2024-01-01', end: '2024-01-13' } } },
      sync_detail: { action: 'append', delta_start: '2024-01-11', delta_end: '2024-01-13' },
    });
    const job = (await inject('GET', `/ingestions/jobs/${synced.body.sync_id}`)).body;
    expect(job).toMatchObject({ processID: 'sync', status: 'successful', progress: { total: 3 } });
    expect(job.events).toEqual([
      expect.objectContaining({
        type: 'dataset.updated',
        data: expect.objectContaining({ action: 'append', previous_end: '2024-01-10', current_end: '2024-01-13' }),
      }),
    ]);

    // The store grew by three periods; the first chunk block is the one written at ingestion.
    const zarray = (await inject('GET', `/zarr/${SOURCE}/value/.zarray`)).body;
    expect(zarray.shape[0]).toBe(13);
    const [ct, ny, nx] = zarray.chunks as number[];
    expect(ct).toBe(10);
    const plane = ny! * nx!;
    const first = await zarrChunk('0.0.0');
    expect(first.slice(9 * plane, 10 * plane)).toEqual(await expectedPlane('2024-01-10'));
    const appended = await zarrChunk('1.0.0');
    for (const [k, day] of ['2024-01-11', '2024-01-12', '2024-01-13'].entries())
      expect(appended.slice(k * plane, (k + 1) * plane)).toEqual(await expectedPlane(day));
    expect(appended.slice(3 * plane).every(Number.isNaN)).toBe(true);

    const again = await inject('POST', `/sync/${SOURCE}`, {});
    expect(again.body).toMatchObject({ sync_id: null, status: 'up_to_date', sync_detail: { action: 'no_op' } });
  }, 60_000);

  it('loses nothing when the worker is killed during a sync, and the retry completes from the store', async () => {
    const before = await datasetStatus();
    await publishThrough('2024-01-16');
    await writeFile(join(dataDir, 'crash-next-sync'), '');
    const accepted = await inject('POST', `/sync/${SOURCE}`, {}, { prefer: 'respond-async' });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.location).toBe(`/ingestions/jobs/${accepted.body.jobID}`);

    const job = (statuses: string[]) =>
      eventually(
        async () => {
          const record = (await inject('GET', `/ingestions/jobs/${accepted.body.jobID}`)).body;
          return statuses.includes(record.status) ? record : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 50 },
      );
    const crashed = await job(['retrying', 'successful', 'failed']);
    expect(crashed).toMatchObject({ status: 'retrying', error: { type: 'WorkerCrashed' } });
    // Readers still get the committed version, whole.
    expect((await datasetStatus()).currentVersion).toBe(before.currentVersion);
    expect((await inject('GET', `/sync/${SOURCE}/plan`)).body).toMatchObject({ current_end: '2024-01-13' });

    const done = await job(['successful', 'failed']);
    expect(done).toMatchObject({ status: 'successful', attempt: 2, progress: { total: 3 } });
    expect(done.events).toHaveLength(1);
    const after = await datasetStatus();
    expect(after.extent?.temporal).toEqual({ start: '2024-01-01', end: '2024-01-16' });
    const zarray = (await inject('GET', `/zarr/${SOURCE}/value/.zarray`)).body;
    expect(zarray.shape[0]).toBe(16);
    const plane = zarray.chunks[1] * zarray.chunks[2];
    const block = await zarrChunk('1.0.0');
    expect(block.slice(2 * plane, 3 * plane)).toEqual(await expectedPlane('2024-01-13'));
    expect(block.slice(5 * plane, 6 * plane)).toEqual(await expectedPlane('2024-01-16'));
    expect(await readdir(join(dataDir, 'store/datasets', SOURCE, 'staging')).catch(() => [])).toEqual([]);
  }, 60_000);

  it('stops a cancelled sync between periods and keeps every committed period', async () => {
    const before = await datasetStatus();
    await publishThrough('2024-02-05');
    await writeFile(join(dataDir, 'slow-next-sync'), '');
    const accepted = await inject('POST', `/sync/${SOURCE}`, {}, { prefer: 'respond-async' });
    const id = accepted.body.jobID as string;
    await eventually(
      async () => {
        const record = (await inject('GET', `/ingestions/jobs/${id}`)).body;
        return (record.progress?.done ?? 0) >= 2 ? record : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    const cancel = await app.inject({ method: 'DELETE', url: `/ingestions/jobs/${id}` });
    expect(cancel.statusCode).toBe(202);
    const cancelled = await eventually(
      async () => {
        const record = (await inject('GET', `/ingestions/jobs/${id}`)).body;
        return ['cancelled', 'successful', 'failed'].includes(record.status) ? record : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    expect(cancelled).toMatchObject({ status: 'cancelled', events: [] });
    expect(cancelled.progress.done).toBeLessThan(20);
    expect((await datasetStatus()).currentVersion).toBe(before.currentVersion);
    expect((await inject('GET', `/sync/${SOURCE}/plan`)).body).toMatchObject({
      current_end: '2024-01-16',
      delta_start: '2024-01-17',
    });
    expect(await readdir(join(dataDir, 'store/datasets', SOURCE, 'staging')).catch(() => [])).toEqual([]);
  }, 60_000);
});
