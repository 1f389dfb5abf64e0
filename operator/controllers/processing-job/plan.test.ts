import { describe, expect, it } from 'vitest';
import type { ProcessingJob, ProcessingJobStatus } from '../../../core/resources/processing-job/schema.ts';
import type { JobState } from '../../jobs/runner.ts';
import type { Action } from '../../runtime/actions.ts';
import { planProcessingJob, RESULTS_FINALIZER, type ProcessingJobObserved } from './plan.ts';

const now = new Date('2026-11-25T10:00:00Z');
const QUEUED = '2026-11-25T09:59:00Z';

function jobOf(
  status?: ProcessingJobStatus,
  spec: Partial<ProcessingJob['spec']> = {},
  deleting = false,
): ProcessingJob {
  return {
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'ProcessingJob',
    metadata: {
      name: 'j',
      namespace: 'default',
      generation: 1,
      finalizers: [RESULTS_FINALIZER],
      ...(deleting && { deletionTimestamp: '2026-11-25T09:59:30Z' }),
    },
    spec: { process: { process_graph: {} }, cancelRequested: false, maxAttempts: 1, ...spec },
    ...(status && { status }),
  } as ProcessingJob;
}

const observed = (job?: JobState, cleanup?: JobState): ProcessingJobObserved => ({
  job,
  cleanup,
  resources: [],
  storageRoot: '/store',
});
const attempt = (phase: JobState['phase'], more: Partial<JobState> = {}): JobState => ({
  name: 'j-a1',
  phase,
  startedAt: '2026-11-25T09:59:10Z',
  ...more,
});
const current = { queuedAt: QUEUED, attempt: 1, jobName: 'j-a1' };

const statusOf = (actions: Action[]) =>
  (actions.find((a) => a.kind === 'patchStatus') as { status: ProcessingJobStatus } | undefined)?.status;
const kinds = (actions: Action[]) => actions.map((a) => a.kind);
const plan = (job: ProcessingJob, state?: JobState, cleanup?: JobState) =>
  planProcessingJob(job, observed(state, cleanup), now);

const finishedResult = {
  outcome: 'finished',
  path: 'jobs/default/j/j-a1',
  files: [{ name: 'result.tif', mediaType: 'image/tiff; application=geotiff', size: 10 }],
  extent: { bbox: [0, 0, 1, 1] },
  usage: { durationSeconds: 1, cpuSeconds: 0.5, peakMemoryMb: 90 },
};

/** A dataset with two retained versions, `v2` served, and a process that loads it. */
const rain = {
  apiVersion: 'climate.stratus.dev/v1alpha1',
  kind: 'Dataset',
  metadata: { name: 'rain', namespace: 'default' },
  spec: { format: 'zarr' },
  status: { currentVersion: 'v2', versions: [{ id: 'v1' }, { id: 'v2' }] },
};
const loadsRain = {
  process_graph: { a: { process_id: 'load_collection', arguments: { id: 'rain' }, result: true } },
};

describe('ProcessingJob planner: every transition of the job statuses', () => {
  it('records a new job as created, with the finalizer that keeps it until its files are removed', () => {
    const first = plan({ ...jobOf(), metadata: { name: 'j', namespace: 'default', generation: 1 } });
    expect(first.actions[0]).toEqual({ kind: 'addFinalizer', name: RESULTS_FINALIZER });
    expect(statusOf(first.actions)).toMatchObject({ phase: 'created' });
    expect(statusOf(first.actions)?.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Created' }),
    ]);
  });

  it('created → queued when queuedAt is set, naming the first attempt; the next reconcile starts it', () => {
    const queued = plan(jobOf({ phase: 'created' }, { queuedAt: QUEUED }));
    expect(statusOf(queued.actions)).toMatchObject({ phase: 'queued', queuedAt: QUEUED, attempt: 1, jobName: 'j-a1' });
    expect(kinds(queued.actions)).not.toContain('startJob');
    const started = plan(jobOf({ phase: 'queued', ...current }, { queuedAt: QUEUED }));
    expect(started.actions).toEqual([
      {
        kind: 'startJob',
        job: {
          name: 'j-a1',
          task: 'processing',
          input: expect.objectContaining({ job: 'j', namespace: 'default', attempt: 'j-a1', storageRoot: '/store' }),
        },
      },
    ]);
  });

  it('queued → running with the attempt progress, and stays so while it runs', () => {
    const running = plan(
      jobOf({ phase: 'queued', ...current }, { queuedAt: QUEUED }),
      attempt('running', { progress: { done: 1, total: 4 } }),
    );
    expect(statusOf(running.actions)).toMatchObject({
      phase: 'running',
      startedAt: '2026-11-25T09:59:10Z',
      progress: { done: 1, total: 4, percent: 25 },
    });
  });

  it('running → finished with the results, usage and an Event', () => {
    const finished = plan(
      jobOf({ phase: 'running', ...current }, { queuedAt: QUEUED }),
      attempt('succeeded', { result: finishedResult, finishedAt: '2026-11-25T09:59:50Z' }),
    );
    expect(statusOf(finished.actions)).toMatchObject({
      phase: 'finished',
      finishedAt: '2026-11-25T09:59:50Z',
      results: { path: 'jobs/default/j/j-a1', files: finishedResult.files, extent: finishedResult.extent },
      usage: finishedResult.usage,
      progress: { percent: 100 },
    });
    expect(finished.actions.at(-1)).toMatchObject({ kind: 'event', type: 'Normal', reason: 'Finished' });
  });

  it('running → error with the openEO error the graph failed with, or the worker error', () => {
    const refused = plan(
      jobOf({ phase: 'running', ...current }, { queuedAt: QUEUED }),
      attempt('succeeded', {
        result: {
          outcome: 'error',
          error: { type: 'CollectionNotFound', message: 'no such collection' },
          usage: finishedResult.usage,
        },
      }),
    );
    expect(statusOf(refused.actions)).toMatchObject({
      phase: 'error',
      error: { type: 'CollectionNotFound', message: 'no such collection' },
    });
    expect(statusOf(refused.actions)?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Stalled', status: 'True', reason: 'Failed' }),
    );
    const crashed = plan(
      jobOf({ phase: 'running', ...current }, { queuedAt: QUEUED }),
      attempt('failed', { error: { type: 'WorkerCrashed', message: 'killed' } }),
    );
    expect(statusOf(crashed.actions)).toMatchObject({ phase: 'error', error: { type: 'WorkerCrashed' } });
    const garbled = plan(
      jobOf({ phase: 'running', ...current }, { queuedAt: QUEUED }),
      attempt('succeeded', { result: 7 }),
    );
    expect(statusOf(garbled.actions)).toMatchObject({ phase: 'error', error: { type: 'WorkerError' } });
  });

  it('queued or running → canceled: a running attempt is cancelled first, its end makes the job canceled', () => {
    const cancelling = plan(
      jobOf({ phase: 'running', ...current }, { queuedAt: QUEUED, cancelRequested: true }),
      attempt('running'),
    );
    expect(cancelling.actions).toEqual([{ kind: 'cancelJob', name: 'j-a1' }]);
    const cancelled = plan(
      jobOf({ phase: 'running', ...current }, { queuedAt: QUEUED, cancelRequested: true }),
      attempt('cancelled'),
    );
    expect(statusOf(cancelled.actions)).toMatchObject({ phase: 'canceled' });
    const beforeStart = plan(jobOf({ phase: 'queued', ...current }, { queuedAt: QUEUED, cancelRequested: true }));
    expect(statusOf(beforeStart.actions)).toMatchObject({ phase: 'canceled', finishedAt: now.toISOString() });
    expect(kinds(beforeStart.actions)).not.toContain('startJob');
  });

  it.each(['finished', 'error', 'canceled'] as const)(
    '%s → queued by a later queuedAt: a new attempt, the previous results, usage and error cleared',
    (phase) => {
      const again = plan(
        jobOf(
          { phase, ...current, results: { path: 'p', files: [] }, error: { type: 'X', message: 'x' } },
          { queuedAt: '2026-11-25T10:00:00Z' },
        ),
      );
      const status = statusOf(again.actions)!;
      expect(status).toMatchObject({ phase: 'queued', attempt: 2, jobName: 'j-a2' });
      expect(status.results).toBeUndefined();
      expect(status.error).toBeUndefined();
    },
  );

  it.each(['created', 'finished', 'error', 'canceled'] as const)(
    'refuses to run a %s job again without a new queuedAt, and ignores a cancel request',
    (phase) => {
      const status = { phase, ...(phase !== 'created' && current) };
      expect(plan(jobOf(status, { queuedAt: phase === 'created' ? undefined : QUEUED })).actions).toEqual([]);
      expect(
        plan(jobOf(status, { queuedAt: phase === 'created' ? undefined : QUEUED, cancelRequested: true })).actions,
      ).toEqual([]);
    },
  );

  it('retries a run whose worker failed after the backoff while spec.maxAttempts allows, then fails it', () => {
    const crash = attempt('failed', { error: { type: 'WorkerCrashed', message: 'killed' } });
    const spec = { queuedAt: QUEUED, maxAttempts: 2 };
    const waiting = plan(jobOf({ phase: 'running', ...current, runFirstAttempt: 1 }, spec), crash);
    expect(statusOf(waiting.actions)).toMatchObject({
      phase: 'queued',
      retryAfter: '2026-11-25T10:01:00.000Z',
      error: { type: 'WorkerCrashed' },
    });
    expect(waiting.outcome).toEqual({ kind: 'requeueAfter', ms: 60_000, reason: 'retry backoff' });
    const later = new Date('2026-11-25T10:01:00Z');
    const retried = planProcessingJob(
      jobOf({ phase: 'queued', ...current, runFirstAttempt: 1, retryAfter: '2026-11-25T10:01:00.000Z' }, spec),
      observed(crash),
      later,
    );
    expect(statusOf(retried.actions)).toMatchObject({ phase: 'queued', attempt: 2, jobName: 'j-a2' });
    expect(statusOf(retried.actions)?.retryAfter).toBeUndefined();
    const second = attempt('failed', { name: 'j-a2', error: { type: 'WorkerCrashed', message: 'killed again' } });
    const failed = plan(
      jobOf({ phase: 'running', queuedAt: QUEUED, attempt: 2, jobName: 'j-a2', runFirstAttempt: 1 }, spec),
      second,
    );
    expect(statusOf(failed.actions)).toMatchObject({ phase: 'error', error: { message: 'killed again' } });
    // A graph that fails is not the worker's failure: no retry.
    const refused = plan(
      jobOf({ phase: 'running', ...current, runFirstAttempt: 1 }, spec),
      attempt('succeeded', {
        result: {
          outcome: 'error',
          error: { type: 'ProcessParameterInvalid', message: 'x' },
          usage: finishedResult.usage,
        },
      }),
    );
    expect(statusOf(refused.actions)).toMatchObject({ phase: 'error' });
  });

  it('stops the running attempt of the previous run before it queues a new one', () => {
    const plan1 = plan(
      jobOf({ phase: 'running', ...current }, { queuedAt: '2026-11-25T10:00:00Z' }),
      attempt('running'),
    );
    expect(plan1.actions).toEqual([{ kind: 'cancelJob', name: 'j-a1' }]);
  });

  it('starts the attempt again when its runner lost it (an embedded operator that restarted)', () => {
    const restarted = plan(jobOf({ phase: 'running', ...current }, { queuedAt: QUEUED }), undefined);
    expect(kinds(restarted.actions)).toEqual(['startJob']);
  });

  it('records the dataset versions an attempt reads when it starts, which a new run forgets', () => {
    const job = jobOf({ phase: 'queued', ...current }, { queuedAt: QUEUED, process: loadsRain });
    const started = planProcessingJob(job, { ...observed(), resources: [rain] }, now);
    expect(kinds(started.actions)).toEqual(['patchStatus', 'startJob']);
    expect(statusOf(started.actions)).toMatchObject({ phase: 'queued', inputs: [{ dataset: 'rain', version: 'v2' }] });
    // Recorded once: the next start of the same attempt (a restarted operator) writes nothing more.
    const recorded = jobOf(
      { phase: 'queued', ...current, inputs: [{ dataset: 'rain', version: 'v2' }] },
      { queuedAt: QUEUED, process: loadsRain },
    );
    expect(kinds(planProcessingJob(recorded, { ...observed(), resources: [rain] }, now).actions)).toEqual(['startJob']);
    const rerun = plan(
      jobOf(
        { phase: 'finished', ...current, inputs: [{ dataset: 'rain', version: 'v2' }] },
        { queuedAt: '2026-11-25T09:59:50Z', process: loadsRain },
      ),
    );
    expect(statusOf(rerun.actions)).toMatchObject({ phase: 'queued' });
    expect(statusOf(rerun.actions)?.inputs).toBeUndefined();
  });

  it('hands the attempt the versions it records, a rerun its pinned ones: what its provenance lists', () => {
    const inputOf = (actions: Action[]) =>
      (actions.find((a) => a.kind === 'startJob') as { job: { input: { inputs: unknown } } }).job.input.inputs;
    const served = planProcessingJob(
      jobOf({ phase: 'queued', ...current }, { queuedAt: QUEUED, process: loadsRain }),
      { ...observed(), resources: [rain] },
      now,
    );
    expect(inputOf(served.actions)).toEqual([{ dataset: 'rain', version: 'v2' }]);
    const rerun = planProcessingJob(
      jobOf(
        { phase: 'queued', ...current },
        { queuedAt: QUEUED, process: loadsRain, rerun: { of: 'first', datasetVersions: { rain: 'v1' } } },
      ),
      { ...observed(), resources: [rain] },
      now,
    );
    expect(statusOf(rerun.actions)?.inputs).toEqual([{ dataset: 'rain', version: 'v1' }]);
    expect(inputOf(rerun.actions)).toEqual([{ dataset: 'rain', version: 'v1' }]);
  });

  it('a deleted job: cancels a running attempt, has a worker remove its files, then lets it go', () => {
    const job = jobOf({ phase: 'running', ...current }, { queuedAt: QUEUED }, true);
    const running = plan(job, attempt('running'));
    expect(running.actions).toEqual([{ kind: 'cancelJob', name: 'j-a1' }]);
    expect(running.outcome.kind).toBe('requeueAfter');
    const stopped = plan(job, attempt('cancelled'));
    expect(stopped.actions).toEqual([
      {
        kind: 'startJob',
        job: {
          name: 'j-gc',
          task: 'remove-job-files',
          input: { job: 'j', namespace: 'default', storageRoot: '/store' },
        },
      },
    ]);
    expect(plan(job, attempt('cancelled'), attempt('running', { name: 'j-gc' })).actions).toEqual([]);
    expect(plan(job, attempt('cancelled'), attempt('succeeded', { name: 'j-gc' })).actions).toEqual([
      { kind: 'removeFinalizer', name: RESULTS_FINALIZER },
    ]);
    const failed = plan(
      job,
      attempt('cancelled'),
      attempt('failed', { name: 'j-gc', error: { type: 'WorkerError', message: 'EACCES' } }),
    );
    expect(failed.actions).toEqual([
      { kind: 'removeFinalizer', name: RESULTS_FINALIZER },
      expect.objectContaining({
        kind: 'event',
        type: 'Warning',
        reason: 'FilesLeft',
        message: expect.stringMatching(/jobs\/default\/j.*EACCES/),
      }),
    ]);
  });

  it('splits the attempt of a long Zarr job into parts, and not a short one', () => {
    const dataset = {
      apiVersion: 'climate.stratus.dev/v1alpha1',
      kind: 'Dataset',
      metadata: { name: 'sample', namespace: 'default' },
      spec: { periodType: 'daily' },
      status: { extent: { temporal: { start: '2024-01-01', end: '2024-12-31' } } },
    };
    const process = (end: string) => ({
      process_graph: {
        load: {
          process_id: 'load_collection',
          arguments: { id: 'sample', spatial_extent: null, temporal_extent: ['2024-01-01', end] },
        },
        save: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'Zarr' }, result: true },
      },
    });
    const split = { periodsPerPart: 40, maxParts: 3, parallelism: 2 };
    const start = (end: string) => {
      const job = jobOf({ phase: 'queued', ...current }, { queuedAt: QUEUED, process: process(end) });
      const { actions } = planProcessingJob(job, { ...observed(), resources: [dataset], split }, now);
      return (actions.find((a) => a.kind === 'startJob') as Extract<Action, { kind: 'startJob' }>).job;
    };
    expect(start('2024-04-01').parts).toEqual({ count: 3, parallelism: 2 });
    expect(start('2024-02-01').parts).toBeUndefined();
  });
});
