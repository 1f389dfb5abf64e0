import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../../core/cluster/embedded/index.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import {
  processingJobKind,
  processingJobSpecSchema,
  type ProcessingJob,
} from '../../../core/resources/processing-job/schema.ts';
import { eventually } from '../../../test/support/eventually.ts';
import type { JobRunner, JobSpec, JobState } from '../../jobs/runner.ts';
import { startOperator, type RunningOperator } from '../../manager.ts';
import { RESULTS_FINALIZER } from './plan.ts';

/**
 * A job runner whose attempts run until cancelled and whose file removals succeed at once, reporting each change
 * as the real runners do: after the call that caused it.
 */
function scriptedRunner() {
  const states = new Map<string, JobState>();
  const listeners: ((job: JobSpec, state: JobState) => void)[] = [];
  const specs = new Map<string, JobSpec>();
  const calls: string[] = [];
  const report = (name: string, state: JobState) => {
    states.set(name, state);
    setImmediate(() => listeners.forEach((listener) => listener(specs.get(name)!, state)));
  };
  const runner: JobRunner = {
    start: (job) => {
      if (specs.has(job.name)) return;
      calls.push(`start ${job.task}`);
      specs.set(job.name, job);
      const startedAt = new Date().toISOString();
      report(job.name, { name: job.name, phase: job.task === 'remove-job-files' ? 'succeeded' : 'running', startedAt });
    },
    get: (name) => states.get(name),
    cancel: (name) => {
      const state = states.get(name);
      if (state?.phase !== 'running') return;
      calls.push(`cancel ${name}`);
      report(name, { ...state, phase: 'cancelled', finishedAt: new Date().toISOString() });
    },
    onChange: (listener) => void listeners.push(listener),
    stop: async () => undefined,
  };
  return { runner, calls };
}

describe('processing-job controller', () => {
  let dataDir: string;
  let cluster: EmbeddedCluster;
  let operator: RunningOperator | undefined;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-processing-job-'));
    cluster = await openEmbeddedCluster({ dataDir });
  });
  afterEach(async () => {
    await operator?.stop();
    await cluster.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('deletes a running job: cancels its attempt, then removes its files, then lets it go, logging no error', async () => {
    const lines: { level: number; msg: string; err?: { message: string } }[] = [];
    const logger = pino(
      { level: 'debug' },
      { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) },
    );
    const { runner, calls } = scriptedRunner();
    operator = startOperator({
      cluster,
      registry: new Registry(),
      logger,
      jobs: runner,
      instance: { storageRoot: join(dataDir, 'store'), bbox: [0, 0, 1, 1] },
    });
    await operator.synced();
    const graph = { sum: { process_id: 'sum', arguments: { data: [1, 2] }, result: true } };
    await cluster.create<ProcessingJob>(processingJobKind, {
      apiVersion: API_VERSION,
      kind: processingJobKind.kind,
      metadata: { name: 'job-1', namespace: 'default' },
      spec: processingJobSpecSchema.parse({ process: { process_graph: graph }, queuedAt: new Date().toISOString() }),
    });
    const running = await eventually(async () => {
      const job = await cluster.get<ProcessingJob>(processingJobKind, 'job-1', 'default');
      return job?.status?.phase === 'running' ? job : undefined;
    });
    expect(running.metadata.finalizers).toEqual([RESULTS_FINALIZER]);

    await cluster.delete(processingJobKind, 'job-1', 'default');
    await eventually(async () =>
      (await cluster.get(processingJobKind, 'job-1', 'default')) === undefined ? true : undefined,
    );
    // Reconciles that follow the deletion (the runner's last reports) find the job gone.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls).toEqual(['start processing', 'cancel job-1-a1', 'start remove-job-files']);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });
});
