// Over 400 lines: the runner's behaviours through a cluster (watch, adoption, deletion, history, namespaces) share one
// setup of an embedded cluster, a run and a runner, which a split of this file would repeat. Its pure parts are
// tested beside them (job-state, job-creation, job-history, job-manifest).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobKind, podKind } from '../../../core/cluster/builtin-kinds.ts';
import { ApiError } from '../../../core/cluster/errors.ts';
import type { WatchOptions } from '../../../core/cluster/port.ts';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../../core/cluster/embedded/index.ts';
import { ingestionKind } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { eventually } from '../../../test/support/eventually.ts';
import type { ReportTarget } from '../../worker/protocol.ts';
import { statusReporter } from '../../worker/status-report.ts';
import type { JobSpec, JobState } from '../runner.ts';
import { workerJobName, type BatchJob, type BatchJobStatus } from './job-manifest.ts';
import { KubernetesJobRunner } from './kubernetes-job-runner.ts';

const spec = (name: string, input: unknown = { source: 'sample' }): JobSpec => ({
  name,
  task: 'ingestion',
  input,
  owner: { kind: ingestionKind, name: 'run', namespace: 'default' },
});
const target = (job: string): ReportTarget => ({ kind: ingestionKind, name: 'run', namespace: 'default', job });

describe('the Kubernetes job runner (on the embedded adapter)', () => {
  let dataDir: string;
  let cluster: EmbeddedCluster;
  let runner: KubernetesJobRunner;
  let heard: [string, JobState][];
  const options = () => ({
    cluster,
    logger: pino({ level: 'silent' }),
    ownerKinds: [ingestionKind],
    job: { namespace: 'default', image: 'stratus:test', store: { claimName: 'store', mountPath: '/store' } },
  });
  const jobNamed = (name: string, namespace = 'default') => cluster.get<BatchJob>(jobKind, name, namespace);
  const jobGone = (name: string, namespace = 'default') =>
    eventually(async () => ((await jobNamed(name, namespace)) ? undefined : true));
  const setJobStatus = async (name: string, status: BatchJobStatus, namespace = 'default') => {
    const job = await jobNamed(name, namespace);
    await cluster.updateStatus(jobKind, { ...job!, status });
  };
  const stateBecomes = (name: string, done: (state: JobState) => boolean, namespace = 'default') =>
    eventually(async () => {
      const state = runner.get(name, namespace);
      return state && done(state) ? state : undefined;
    });

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-job-runner-'));
    cluster = await openEmbeddedCluster({ dataDir });
    await cluster.create(ingestionKind, {
      apiVersion: API_VERSION,
      kind: 'Ingestion',
      metadata: { name: 'run', namespace: 'default' },
      spec: { source: 'sample' },
    });
    runner = new KubernetesJobRunner(options());
    heard = [];
    runner.onChange((job, state) => heard.push([job.owner.name, state]));
    await runner.sync();
  });
  afterEach(async () => {
    await runner.stop();
    await cluster.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates one Job per attempt, owned by the run, however often it is started', async () => {
    runner.start(spec('run-a1'));
    runner.start(spec('run-a1'));
    const job = await eventually(() => jobNamed('run-a1'));
    const run = await cluster.get(ingestionKind, 'run', 'default');
    expect(job.metadata.ownerReferences).toEqual([
      {
        apiVersion: API_VERSION,
        kind: 'Ingestion',
        name: 'run',
        uid: run!.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect((await cluster.list(jobKind, { namespace: 'default' })).items).toHaveLength(1);
    expect(runner.get('run-a1', 'default')).toMatchObject({ phase: 'running' });
  });

  it('reads progress and the result from what the worker reports into the run status', async () => {
    runner.start(spec('run-a1'));
    await eventually(() => jobNamed('run-a1'));
    const reporter = statusReporter(cluster, target('run-a1'));
    reporter.report({ type: 'progress', done: 1, total: 3, message: 'day 1' });
    await reporter.flushed();
    await stateBecomes('run-a1', (s) => s.progress?.done === 1);
    expect(runner.get('run-a1', 'default')).toMatchObject({
      phase: 'running',
      progress: { done: 1, total: 3, message: 'day 1' },
    });

    reporter.report({ type: 'progress', done: 3, total: 3 });
    reporter.report({ type: 'result', value: { versionId: 'v1' } });
    await reporter.flushed();
    await setJobStatus('run-a1', { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] });
    const state = await stateBecomes('run-a1', (s) => s.phase !== 'running');
    expect(state).toMatchObject({ phase: 'succeeded', result: { versionId: 'v1' }, progress: { done: 3, total: 3 } });
    expect(state.progress?.message).toBeUndefined();
    expect(heard.every(([owner]) => owner === 'run')).toBe(true);
    expect(heard.map(([, s]) => s.phase)).toContain('succeeded');
  });

  describe('a split attempt', () => {
    const split = (name: string): JobSpec => ({ ...spec(name), parts: { count: 3, parallelism: 2 } });
    const partReporter = (job: string, index: number) =>
      statusReporter(cluster, { ...target(job), part: { index, count: 3 } });

    it('runs as an Indexed Job whose parts report as one attempt, succeeding once every part did', async () => {
      runner.start(split('run-a1'));
      const job = await eventually(() => jobNamed('run-a1'));
      expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 3, parallelism: 2 });
      const parts = [0, 1, 2].map((index) => partReporter('run-a1', index));
      parts[0]!.report({ type: 'progress', done: 4, total: 30, message: 'part 1: stored 4' });
      parts[2]!.report({ type: 'progress', done: 6, total: 30, message: 'part 3: stored 6' });
      await Promise.all(parts.map((p) => p.flushed()));
      const running = await stateBecomes('run-a1', (s) => s.progress?.done === 10);
      expect(running).toMatchObject({ phase: 'running', progress: { done: 10, total: 30 } });
      // The parts' merge patches left each other's reports alone.
      const run = await cluster.get(ingestionKind, 'run', 'default');
      expect(Object.keys((run!.status as { worker: { parts: object } }).worker.parts).sort()).toEqual(['0', '2']);

      parts[0]!.report({ type: 'result', value: null });
      parts[2]!.report({ type: 'result', value: { versionId: 'v1' } });
      await Promise.all(parts.map((p) => p.flushed()));
      await new Promise((r) => setTimeout(r, 50));
      expect(runner.get('run-a1', 'default')?.phase).toBe('running');
      parts[1]!.report({ type: 'progress', done: 10, total: 30 });
      parts[1]!.report({ type: 'result', value: null });
      await parts[1]!.flushed();
      await setJobStatus('run-a1', { succeeded: 3, conditions: [{ type: 'Complete', status: 'True' }] });
      const state = await stateBecomes('run-a1', (s) => s.phase !== 'running');
      expect(state.error).toBeUndefined();
      expect(state).toMatchObject({
        phase: 'succeeded',
        result: { versionId: 'v1' },
        progress: { done: 20, total: 30 },
      });
    });

    it('fails with the part that failed', async () => {
      runner.start(split('run-a1'));
      await eventually(() => jobNamed('run-a1'));
      const failing = partReporter('run-a1', 1);
      failing.report({ type: 'error', errorType: 'UpstreamUnavailable', message: 'upstream answered 503' });
      await failing.flushed();
      const state = await stateBecomes('run-a1', (s) => s.phase !== 'running');
      expect(state).toMatchObject({
        phase: 'failed',
        error: { type: 'UpstreamUnavailable', message: 'upstream answered 503' },
      });
    });

    it('runs in one plain Job where the API server has no Indexed Jobs', async () => {
      await runner.stop();
      runner = new KubernetesJobRunner({ ...options(), indexedJobs: false });
      await runner.sync();
      runner.start(split('run-a1'));
      const job = await eventually(() => jobNamed('run-a1'));
      expect(job.spec).not.toHaveProperty('completionMode');
      const env = (job.spec as { template: { spec: { containers: { env: { name: string }[] }[] } } }).template.spec
        .containers[0]!.env;
      expect(env.map((e) => e.name)).not.toContain('STRATUS_WORKER_PARTS');
      const reporter = statusReporter(cluster, target('run-a1'));
      reporter.report({ type: 'result', value: { versionId: 'v1' } });
      await reporter.flushed();
      await setJobStatus('run-a1', { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] });
      expect(await stateBecomes('run-a1', (s) => s.phase !== 'running')).toMatchObject({
        phase: 'succeeded',
        result: { versionId: 'v1' },
      });
    });
  });

  it('ignores a report of an earlier attempt', async () => {
    const earlier = statusReporter(cluster, target('run-a1'));
    earlier.report({ type: 'error', errorType: 'UpstreamUnavailable', message: 'down' });
    await earlier.flushed();
    runner.start(spec('run-a2'));
    await eventually(() => jobNamed('run-a2'));
    expect(runner.get('run-a2', 'default')).toMatchObject({ phase: 'running' });
    expect(runner.get('run-a2', 'default')?.error).toBeUndefined();
  });

  it('fails an attempt whose pod failed without a report from the Job condition', async () => {
    runner.start(spec('run-a1'));
    await eventually(() => jobNamed('run-a1'));
    await setJobStatus('run-a1', {
      failed: 1,
      conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'too long' }],
    });
    const state = await stateBecomes('run-a1', (s) => s.phase !== 'running');
    expect(state).toMatchObject({ phase: 'failed', error: { type: 'DeadlineExceeded', message: 'too long' } });
  });

  it("names an OOM kill and the memory limit when the failed Job's pod says so", async () => {
    runner.start(spec('run-a1'));
    await eventually(() => jobNamed('run-a1'));
    await cluster.create(podKind, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'run-a1-x7k2p', namespace: 'default', labels: { 'job-name': 'run-a1' } },
      spec: { containers: [{ name: 'worker', resources: { limits: { memory: '64Mi' } } }] },
    });
    const pod = await cluster.get(podKind, 'run-a1-x7k2p', 'default');
    await cluster.updateStatus(podKind, {
      ...pod!,
      status: {
        containerStatuses: [{ name: 'worker', state: { terminated: { reason: 'OOMKilled', exitCode: 137 } } }],
      },
    });
    await setJobStatus('run-a1', {
      failed: 1,
      conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'backoff limit' }],
    });
    await stateBecomes('run-a1', (s) => s.phase !== 'running');
    const failures = heard.filter(([, state]) => state.phase === 'failed');
    expect(failures.map(([, state]) => state.error)).toEqual([
      {
        type: 'WorkerCrashed',
        message: 'the worker pod run-a1-x7k2p was OOMKilled: its container worker exceeded its memory limit of 64Mi',
      },
    ]);
  });

  it('keeps the failure a Job showed after the Job is deleted, and fails a running one deleted by someone else', async () => {
    runner.start(spec('run-a1'));
    runner.start(spec('run-a2'));
    await eventually(() => jobNamed('run-a2'));
    await setJobStatus('run-a1', {
      failed: 1,
      conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'too long' }],
    });
    await stateBecomes('run-a1', (s) => s.phase === 'failed');
    await cluster.delete(jobKind, 'run-a1', 'default');
    await cluster.delete(jobKind, 'run-a2', 'default');
    expect((await stateBecomes('run-a2', (s) => s.phase !== 'running')).error?.type).toBe('JobDeleted');
    expect(runner.get('run-a1', 'default')?.error).toEqual({ type: 'DeadlineExceeded', message: 'too long' });
  });

  it('fails an attempt whose pod succeeded without ever reporting an end', async () => {
    runner.start(spec('run-a1'));
    await eventually(() => jobNamed('run-a1'));
    await setJobStatus('run-a1', { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] });
    const state = await stateBecomes('run-a1', (s) => s.phase !== 'running');
    expect(state.error?.type).toBe('ReportMissing');
  });

  it('cancels by deleting the Job', async () => {
    runner.start(spec('run-a1'));
    await eventually(() => jobNamed('run-a1'));
    runner.cancel('run-a1', 'default');
    await eventually(async () => ((await jobNamed('run-a1')) ? undefined : true));
    expect((await stateBecomes('run-a1', (s) => s.phase !== 'running')).phase).toBe('cancelled');
  });

  // The refusals and retries of a Job's creation are tested in job-creation.test.ts.
  it('fails an attempt at once when its input is too large for an argument, creating no Job', async () => {
    runner.start(spec('run-a1', 'x'.repeat(200_000)));
    const state = await stateBecomes('run-a1', (s) => s.phase !== 'running');
    expect(state.error?.type).toBe('InputTooLarge');
    expect(await jobNamed('run-a1')).toBeUndefined();
  });

  it('counts a Job that went while its watch was broken as deleted when it relists', async () => {
    runner.start(spec('run-a1'));
    await eventually(() => jobNamed('run-a1'));
    await runner.stop();
    // The Jobs watch misses the deletion, ends, and its resumption is answered 410 Gone.
    let deaf = false;
    let goneNext = false;
    const inner = cluster;
    const watch = async function* (kind: typeof jobKind, options: WatchOptions) {
      if (kind === jobKind && goneNext) {
        goneNext = false;
        throw new ApiError('Gone', 'too old resource version');
      }
      for await (const event of inner.watch(kind, options)) {
        if (kind === jobKind && deaf && event.type === 'DELETED') {
          [deaf, goneNext] = [false, true];
          return;
        }
        yield event;
      }
    };
    const lossy = new Proxy(inner, {
      get: (target, member) => {
        if (member === 'watch') return watch;
        const value: unknown = Reflect.get(target, member);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    runner = new KubernetesJobRunner({ ...options(), cluster: lossy });
    await runner.sync();
    expect(runner.get('run-a1', 'default')).toMatchObject({ phase: 'running' });
    deaf = true;
    await cluster.delete(jobKind, 'run-a1', 'default');
    expect((await stateBecomes('run-a1', (s) => s.phase !== 'running')).error?.type).toBe('JobDeleted');
    expect(goneNext).toBe(false);
  });

  it('after a restart, answers for Jobs that an earlier runner started', async () => {
    runner.start(spec('run-a1'));
    await eventually(() => jobNamed('run-a1'));
    await runner.stop();
    runner = new KubernetesJobRunner(options());
    await runner.sync();
    expect(runner.get('run-a1', 'default')).toMatchObject({ phase: 'running' });
    const reporter = statusReporter(cluster, target('run-a1'));
    reporter.report({ type: 'cancelled' });
    await reporter.flushed();
    expect((await stateBecomes('run-a1', (s) => s.phase !== 'running')).phase).toBe('cancelled');
  });

  describe('after a restart, for an attempt whose Job went while no runner watched (collected after its TTL)', () => {
    const restartWithoutTheJob = async (report: Parameters<ReturnType<typeof statusReporter>['report']>[0]) => {
      runner.start(spec('run-a1'));
      await eventually(() => jobNamed('run-a1'));
      const reporter = statusReporter(cluster, target('run-a1'));
      reporter.report(report);
      await reporter.flushed();
      await runner.stop();
      await cluster.delete(jobKind, 'run-a1', 'default');
      runner = new KubernetesJobRunner(options());
      await runner.sync();
    };

    it('answers with the end its worker reported, so the attempt is not taken for one never started', async () => {
      await restartWithoutTheJob({ type: 'result', value: { versionId: 'v1' } });
      expect(runner.get('run-a1', 'default')).toMatchObject({ phase: 'succeeded', result: { versionId: 'v1' } });
    });

    it('fails it when its worker reported no end: it can end no more', async () => {
      await restartWithoutTheJob({ type: 'progress', done: 1, total: 3 });
      expect(runner.get('run-a1', 'default')).toMatchObject({ phase: 'failed', error: { type: 'JobDeleted' } });
    });
  });

  it('forgets the attempts of a deleted run, and hears nothing of them when the collector deletes their Jobs', async () => {
    runner.start(spec('run-a1'));
    await eventually(() => jobNamed('run-a1'));
    await cluster.delete(ingestionKind, 'run', 'default');
    await jobGone('run-a1');
    const heardBefore = heard.length;
    // The runner watched the Job go (a new one of the same attempt would be seen, the old one is not).
    await eventually(async () => (runner.get('run-a1', 'default') === undefined ? true : undefined));
    expect(heard.slice(heardBefore)).toEqual([]);
    expect(heard.some(([, s]) => s.error?.type === 'JobDeleted')).toBe(false);
  });

  it('keeps the newest finished Jobs of a run within the history limits and deletes older ones', async () => {
    await runner.stop();
    runner = new KubernetesJobRunner({ ...options(), history: { successful: 1, failed: 1 } });
    await runner.sync();
    const failure = { failed: 1, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] };
    for (const name of ['run-a1', 'run-a2', 'run-a3']) runner.start(spec(name));
    await eventually(() => jobNamed('run-a3'));
    await setJobStatus('run-a1', failure);
    await stateBecomes('run-a1', (s) => s.phase === 'failed');
    await setJobStatus('run-a2', failure);
    await jobGone('run-a1');
    expect(await jobNamed('run-a2')).toBeDefined();
    // What the deleted Job said stays the attempt's state.
    expect(runner.get('run-a1', 'default')).toMatchObject({ phase: 'failed', error: { type: 'WorkerCrashed' } });

    // A succeeded Job counts once its report arrived; the running one is never touched.
    const reporter = statusReporter(cluster, target('run-a3'));
    reporter.report({ type: 'result', value: { versionId: 'v1' } });
    await reporter.flushed();
    await setJobStatus('run-a3', { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] });
    await stateBecomes('run-a3', (s) => s.phase === 'succeeded');
    runner.start(spec('run-a4'));
    await eventually(() => jobNamed('run-a4'));
    const next = statusReporter(cluster, target('run-a4'));
    next.report({ type: 'result', value: { versionId: 'v2' } });
    await next.flushed();
    await setJobStatus('run-a4', { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] });
    await jobGone('run-a3');
    expect(await jobNamed('run-a4')).toBeDefined();
    expect(await jobNamed('run-a2')).toBeDefined();
    expect(runner.get('run-a3', 'default')).toMatchObject({ phase: 'succeeded', result: { versionId: 'v1' } });
  });

  describe('with Jobs in the store namespace, for runs of another namespace', () => {
    const store = () => ({ ...options(), job: { ...options().job, namespace: 'stratus' } });
    beforeEach(async () => {
      await runner.stop();
      runner = new KubernetesJobRunner(store());
      await runner.sync();
    });

    it('runs the Job there, labelled with its run, and deletes it when the run is deleted', async () => {
      runner.start(spec('run-a1'));
      const job = await eventually(() => jobNamed(workerJobName('run-a1', 'default', 'stratus'), 'stratus'));
      const run = await cluster.get(ingestionKind, 'run', 'default');
      expect(job.metadata.ownerReferences).toBeUndefined();
      expect(job.metadata.labels).toMatchObject({
        'climate.stratus.dev/run-namespace': 'default',
        'climate.stratus.dev/run-uid': run!.metadata.uid,
      });
      expect(runner.get('run-a1', 'default')).toMatchObject({ phase: 'running' });
      await cluster.delete(ingestionKind, 'run', 'default');
      await jobGone(workerJobName('run-a1', 'default', 'stratus'), 'stratus');
    });

    it('deletes, when it starts, the Jobs whose run went while no runner watched, and keeps the others', async () => {
      await cluster.create(ingestionKind, {
        apiVersion: API_VERSION,
        kind: 'Ingestion',
        metadata: { name: 'kept', namespace: 'default' },
        spec: { source: 'sample' },
      });
      runner.start(spec('run-a1'));
      runner.start({ ...spec('kept-a1'), owner: { ...spec('kept-a1').owner, name: 'kept' } });
      await eventually(() => jobNamed(workerJobName('kept-a1', 'default', 'stratus'), 'stratus'));
      await eventually(() => jobNamed(workerJobName('run-a1', 'default', 'stratus'), 'stratus'));
      await runner.stop();
      await cluster.delete(ingestionKind, 'run', 'default');
      runner = new KubernetesJobRunner(store());
      await runner.sync();
      await jobGone(workerJobName('run-a1', 'default', 'stratus'), 'stratus');
      expect(await jobNamed(workerJobName('kept-a1', 'default', 'stratus'), 'stratus')).toBeDefined();
    });

    it('gives attempts of one name, of runs in two namespaces, a Job each and keeps their states apart', async () => {
      for (const namespace of ['stratus', 'other'])
        await cluster.create(ingestionKind, {
          apiVersion: API_VERSION,
          kind: 'Ingestion',
          metadata: { name: 'run', namespace },
          spec: { source: 'sample' },
        });
      for (const namespace of ['default', 'stratus', 'other'])
        runner.start({ ...spec('run-a1'), owner: { ...spec('run-a1').owner, namespace } });
      const names = ['default', 'stratus', 'other'].map((ns) => workerJobName('run-a1', ns, 'stratus'));
      expect(names[1]).toBe('run-a1');
      expect(new Set(names).size).toBe(3);
      for (const name of names) await eventually(() => jobNamed(name, 'stratus'));

      const reporter = statusReporter(cluster, { ...target('run-a1'), namespace: 'other' });
      reporter.report({ type: 'error', errorType: 'UpstreamUnavailable', message: 'down' });
      await reporter.flushed();
      await stateBecomes('run-a1', (s) => s.phase === 'failed', 'other');
      expect(runner.get('run-a1', 'default')).toMatchObject({ phase: 'running' });
      expect(runner.get('run-a1', 'stratus')).toMatchObject({ phase: 'running' });

      runner.cancel('run-a1', 'default');
      await jobGone(names[0]!, 'stratus');
      expect(await jobNamed('run-a1', 'stratus')).toBeDefined();
    });
  });
});
