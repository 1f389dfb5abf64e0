import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../../core/cluster/embedded/index.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION, validateObject } from '../../../core/resources/registry.ts';
import { ChildProcessRunner } from '../../jobs/child-process-runner.ts';
import { startOperator, type RunningOperator } from '../../manager.ts';
import { eventually } from '../../../test/support/eventually.ts';

/** Every file under `dir` with a digest of its bytes, to show a tree did not change. */
async function treeDigest(dir: string): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    digests[relative(dir, path)] = createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  }
  return digests;
}

const until = (cluster: EmbeddedCluster, name: string, done: (run: Ingestion) => boolean) =>
  eventually(
    async () => {
      const run = await cluster.get<Ingestion>(ingestionKind, name, 'default');
      return run && done(run) ? run : undefined;
    },
    { timeoutMs: 20_000 },
  );

describe('ingestion runs end to end (embedded)', () => {
  let dataDir: string;
  let storageRoot: string;
  let cluster: EmbeddedCluster;
  let operator: RunningOperator;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-ingestion-'));
    cluster = await openEmbeddedCluster({ dataDir });
    operator = startOperator({
      cluster,
      registry: new Registry(),
      logger: pino({ level: 'silent' }),
      instance: { storageRoot: (storageRoot = join(dataDir, 'store')), bbox: [0, 0, 1, 1] },
      jobs: new ChildProcessRunner({ cancelGraceMs: 2_000 }),
      runs: { backoff: { retryBaseSeconds: 0.3, retryCapSeconds: 0.6 } },
    });
    for (const [name, provider] of [
      ['chirps', 'no-such-provider'],
      ['sample', 'sample'],
    ]) {
      await cluster.create(dataSourceKind, {
        apiVersion: API_VERSION,
        kind: 'DataSource',
        metadata: { name, namespace: 'default' },
        spec: { datasetName: name, variable: 'value', periodType: 'daily', provider: { name: provider } },
      });
    }
  });
  afterEach(async () => {
    await operator.stop();
    await cluster.close();
    delete process.env.STRATUS_WORKER_TASK_MODULES;
    delete process.env.STRATUS_TEST_DIR;
    await rm(dataDir, { recursive: true, force: true });
  });

  const create = async (name: string, spec: Record<string, unknown>) => {
    const result = validateObject({
      apiVersion: API_VERSION,
      kind: 'Ingestion',
      metadata: { name, namespace: 'default' },
      spec: { source: 'sample', start: '2024-01-01', end: '2024-01-10', ...spec },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    await cluster.create(ingestionKind, result.object);
  };

  it('fails a run whose provider is missing after its attempts, with the typed error', async () => {
    await create('no-provider', { source: 'chirps', maxAttempts: 2 });
    const run = await until(cluster, 'no-provider', (r) => r.status?.phase === 'failed');
    expect(run.status).toMatchObject({ attempt: 2, error: { type: 'ProviderUnavailable' } });
    expect(run.status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'ProviderUnavailable',
    });
  });

  it('creates the dataset from its source, writes a version and switches the dataset to it', async () => {
    await create('first', {});
    const run = await until(cluster, 'first', (r) => r.status?.phase === 'successful');
    const dataset = await cluster.get<Dataset>(datasetKind, 'sample', 'default');
    expect(dataset?.metadata.labels).toEqual({ 'climate.stratus.dev/source': 'sample' });
    expect(dataset?.status).toMatchObject({
      currentVersion: run.status?.result?.version,
      extent: {
        spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 },
        temporal: { start: '2024-01-01', end: '2024-01-10' },
      },
      publication: { status: 'published' },
    });
    expect(run.status?.events).toMatchObject([
      { type: 'dataset.updated', eventID: 'first:1', data: { action: 'create', current_end: '2024-01-10' } },
    ]);
    const store = join(storageRoot, dataset!.status!.versions![0]!.path);
    const zarray = JSON.parse(await readFile(join(store, 'value', '.zarray'), 'utf8'));
    expect(zarray.shape).toEqual([10, 20, 20]);

    // The same request again reuses the version; overwrite makes a new one.
    await create('again', {});
    expect((await until(cluster, 'again', (r) => r.status?.phase === 'successful')).status?.result).toMatchObject({
      reused: true,
      version: run.status?.result?.version,
    });
  });

  it('runs two runs of one dataset one after the other, never both at once', async () => {
    await create('one', { end: '2024-06-30', overwrite: true });
    await create('two', { end: '2024-06-30', overwrite: true });
    const [one, two] = [
      await until(cluster, 'one', (r) => r.status?.phase === 'successful'),
      await until(cluster, 'two', (r) => r.status?.phase === 'successful'),
    ];
    const [first, second] = one.status!.startedAt! < two.status!.startedAt! ? [one, two] : [two, one];
    expect(second.status!.startedAt! >= first.status!.finishedAt!).toBe(true);
    // Each run's switch was computed from the Dataset the other had just switched: both versions are kept.
    const dataset = await cluster.get<Dataset>(datasetKind, 'sample', 'default');
    expect(dataset?.status?.versions?.map((v) => v.id)).toEqual([
      first.status?.result?.version,
      second.status?.result?.version,
    ]);
    expect(dataset?.status?.currentVersion).toBe(second.status?.result?.version);
  });

  it('retries a flaky attempt and succeeds, with the result in status', async () => {
    process.env.STRATUS_WORKER_TASK_MODULES = resolve(
      import.meta.dirname,
      '../../../test/fixtures/worker/ingestion-tasks.ts',
    );
    process.env.STRATUS_TEST_DIR = dataDir;
    await create('flaky', { maxAttempts: 3 });
    const run = await until(cluster, 'flaky', (r) => r.status?.phase === 'successful');
    expect(run.status).toMatchObject({ attempt: 3, result: { datasetId: 'sample', reused: false } });
    expect(run.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Succeeded',
    });
  });

  it('keeps the previous version byte for byte when a worker is killed mid-ingestion, and the retry leaves no orphans', async () => {
    await create('base', {});
    await until(cluster, 'base', (r) => r.status?.phase === 'successful');
    const before = (await cluster.get<Dataset>(datasetKind, 'sample', 'default'))!.status!;
    const previous = join(storageRoot, before.versions![0]!.path);
    const snapshot = await treeDigest(previous);

    process.env.STRATUS_WORKER_TASK_MODULES = resolve(
      import.meta.dirname,
      '../../../test/fixtures/worker/ingestion-tasks.ts',
    );
    await create('crash', { end: '2024-03-31', maxAttempts: 2 });
    const crashed = await until(cluster, 'crash', (r) => r.status?.phase === 'retrying');
    expect(crashed.status?.error).toMatchObject({ type: 'WorkerCrashed' });
    // While the first attempt is dead and the retry waits, readers are still on the previous version.
    expect((await cluster.get<Dataset>(datasetKind, 'sample', 'default'))!.status!.currentVersion).toBe(
      before.currentVersion,
    );
    expect(await treeDigest(previous)).toEqual(snapshot);

    const run = await until(cluster, 'crash', (r) => r.status?.phase === 'successful');
    const after = (await cluster.get<Dataset>(datasetKind, 'sample', 'default'))!.status!;
    expect(after.currentVersion).toBe(run.status?.result?.version);
    expect(after.extent?.temporal).toEqual({ start: '2024-01-01', end: '2024-03-31' });
    expect(await treeDigest(previous)).toEqual(snapshot);
    const datasetDir = join(storageRoot, 'datasets', 'sample');
    expect((await readdir(join(datasetDir, 'versions'))).sort()).toEqual(after.versions!.map((v) => v.id).sort());
    expect(await readdir(join(datasetDir, 'staging')).catch(() => [])).toEqual([]);
  });

  it('writes progress while running, and a cancel request stops the run between units of work', async () => {
    process.env.STRATUS_WORKER_TASK_MODULES = resolve(
      import.meta.dirname,
      '../../../test/fixtures/worker/ingestion-tasks.ts',
    );
    await create('counting', {});
    const running = await until(cluster, 'counting', (r) => (r.status?.progress?.done ?? 0) >= 3);
    expect(running.status).toMatchObject({ phase: 'running', progress: { total: 100 } });
    await cluster.patch(
      ingestionKind,
      'counting',
      { type: 'merge', body: { spec: { cancelRequested: true } } },
      'default',
    );
    const cancelled = await until(cluster, 'counting', (r) => r.status?.phase === 'cancelled');
    expect(cancelled.status?.progress?.done).toBeLessThan(100);
    expect(cancelled.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Cancelled',
    });
  });
});
