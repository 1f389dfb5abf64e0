import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../../core/cluster/embedded/index.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION, validateObject } from '../../../core/resources/registry.ts';
import { ChildProcessRunner } from '../../jobs/child-process-runner.ts';
import { startOperator, type RunningOperator } from '../../manager.ts';
import { eventually } from '../../../test/support/eventually.ts';

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
  let cluster: EmbeddedCluster;
  let operator: RunningOperator;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-ingestion-'));
    cluster = await openEmbeddedCluster({ dataDir });
    operator = startOperator({
      cluster,
      registry: new Registry(),
      logger: pino({ level: 'silent' }),
      jobs: new ChildProcessRunner({ cancelGraceMs: 2_000 }),
      ingestion: { retryBaseSeconds: 0.05, retryCapSeconds: 0.2 },
    });
    await cluster.create(dataSourceKind, {
      apiVersion: API_VERSION,
      kind: 'DataSource',
      metadata: { name: 'chirps', namespace: 'default' },
      spec: { datasetName: 'CHIRPS', provider: { name: 'chirps' } },
    });
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
      spec: { source: 'chirps', ...spec },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    await cluster.create(ingestionKind, result.object);
  };

  it('fails a run whose provider is missing after its attempts, with the typed error', async () => {
    await create('no-provider', { maxAttempts: 2 });
    const run = await until(cluster, 'no-provider', (r) => r.status?.phase === 'failed');
    expect(run.status).toMatchObject({ attempt: 2, error: { type: 'ProviderUnavailable' } });
    expect(run.status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'ProviderUnavailable',
    });
  });

  it('retries a flaky attempt and succeeds, with the result in status', async () => {
    process.env.STRATUS_WORKER_TASK_MODULES = resolve(
      import.meta.dirname,
      '../../../test/fixtures/worker/ingestion-tasks.ts',
    );
    process.env.STRATUS_TEST_DIR = dataDir;
    await create('flaky', { maxAttempts: 3 });
    const run = await until(cluster, 'flaky', (r) => r.status?.phase === 'successful');
    expect(run.status).toMatchObject({ attempt: 3, result: { attempts: 3 } });
    expect(run.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Succeeded',
    });
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
