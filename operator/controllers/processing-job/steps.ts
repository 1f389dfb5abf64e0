/**
 * The steps of a ProcessingJob's lifecycle (plan.ts). A run is asked for by a new `spec.queuedAt`; each run has one
 * attempt (a graph that fails fails again), named `<job>-a<n>` with `n` counted across runs, and another only when
 * its worker failed. A deleted job is cancelled, then its files are removed.
 */
import type { KubeObject } from '../../../core/cluster/objects.ts';
import type { processingJobConditions } from '../../../core/resources/processing-job/conditions.ts';
import type { JobInput, ProcessingJob, ProcessingJobStatus } from '../../../core/resources/processing-job/schema.ts';
import { jobPath } from '../../../core/stores/layout.ts';
import { jobInputs } from '../../../core/processing/jobs/inputs.ts';
import { withPinnedVersions } from '../../../core/processing/jobs/rerun.ts';
import { jobParts } from '../../../core/processing/jobs/split.ts';
import type { RetryBackoff } from '../../../core/runs/backoff.ts';
import type { SplitOptions } from '../../../core/runs/options.ts';
import { retryDelaySeconds } from '../../../core/runs/backoff.ts';
import type { JobState } from '../../jobs/runner.ts';
import type { Action, Outcome } from '../../runtime/actions.ts';
import { filesRemoval, reportedProgress, type RunStep, type Transition } from '../../runtime/run-lifecycle.ts';
import { processingResultSchema, type ProcessingInput } from '../../worker/processing-input.ts';

/** Holds a deleted job until its files are removed. */
export const RESULTS_FINALIZER = 'climate.stratus.dev/job-results';

export interface ProcessingJobObserved {
  /** The current attempt, as its runner knows it. */
  job: JobState | undefined;
  /** The worker that removes a deleted job's files (`cleanupName`). */
  cleanup: JobState | undefined;
  /** What the graph reads, when an attempt may start (references.ts). */
  resources: KubeObject[];
  storageRoot: string;
  /** When attempts are split into parts (core/processing/jobs/split.ts); never when absent. */
  split?: SplitOptions;
  /** The retry backoff of a failed worker; the default when absent. */
  backoff?: RetryBackoff;
}

/** One reconcile of a job. */
export interface JobContext {
  run: ProcessingJob;
  observed: ProcessingJobObserved;
  now: Date;
  at: string;
  status: ProcessingJobStatus;
}

type JobTransition = Transition<typeof processingJobConditions, ProcessingJobStatus>;
type JobStep = RunStep<JobContext, typeof processingJobConditions, ProcessingJobStatus>;

const done = (reason: string): Outcome => ({ kind: 'done', reason });

const attemptName = (job: ProcessingJob, attempt: number) => `${job.metadata.name}-a${attempt}`;
export const cleanupName = (job: ProcessingJob) => `${job.metadata.name}-gc`;

/** A deleted job: its attempt stops, a worker removes its directory, then the finalizer goes. */
export const deleted: JobStep = ({ run: job, observed }) => {
  const namespace = job.metadata.namespace ?? 'default';
  const input = { job: job.metadata.name, namespace, storageRoot: observed.storageRoot };
  return filesRemoval({
    running: observed.job?.phase === 'running' ? job.status!.jobName! : undefined,
    cleanup: observed.cleanup,
    job: { name: cleanupName(job), task: 'remove-job-files', input },
    finalizer: RESULTS_FINALIZER,
    left: (why) =>
      `The files of job ${job.metadata.name} stay at ${jobPath(namespace, job.metadata.name)} under the store: ${why}.`,
  });
};

/**
 * A job at rest plans nothing: created, or its run ended. A new `spec.queuedAt` queues a new run; an attempt of the
 * previous one that still runs is stopped first, and its end starts this one.
 */
export const finished: JobStep = ({ run: job, status, observed }) => {
  const { queuedAt } = job.spec;
  if (queuedAt !== undefined && queuedAt !== status.queuedAt) {
    if (observed.job?.phase === 'running')
      return { after: [{ kind: 'cancelJob', name: status.jobName! }], outcome: done('stopping the previous run') };
    const attempt = (status.attempt ?? 0) + 1;
    return {
      status: {
        set: {
          phase: 'queued',
          queuedAt,
          attempt,
          runFirstAttempt: attempt,
          retryAfter: undefined,
          jobName: attemptName(job, attempt),
          progress: undefined,
          startedAt: undefined,
          finishedAt: undefined,
          results: undefined,
          usage: undefined,
          inputs: undefined,
          error: undefined,
        },
        reason: 'Queued',
        message: `Run of ${queuedAt} queued.`,
      },
      outcome: done('queued'),
    };
  }
  if (status.phase === undefined)
    return { status: { set: { phase: 'created' }, reason: 'Created', message: 'Created.' }, outcome: done('created') };
  if (status.phase !== 'queued' && status.phase !== 'running') return { outcome: done(`job ${status.phase}`) };
  return undefined;
};

/** A running attempt is cancelled first (its end is observed later); with none, the run is cancelled now. */
export const cancel: JobStep = ({ run: job, status, observed, at }) => {
  if (!job.spec.cancelRequested) return undefined;
  if (observed.job?.phase === 'running')
    return { after: [{ kind: 'cancelJob', name: status.jobName! }], outcome: done('cancelling') };
  if (observed.job?.phase === 'cancelled') return undefined;
  const message = 'The run was cancelled before its attempt ran.';
  return {
    status: { set: { phase: 'canceled', finishedAt: at }, reason: 'Canceled', message },
    event: { reason: 'Canceled', message },
    outcome: done('cancelled'),
  };
};

/**
 * No attempt is known: not started yet, or its runner lost it (an embedded operator that restarted). The dataset
 * versions the attempt reads are recorded first; they stay retained until the run ends.
 */
export const start: JobStep = ({ run: job, status, observed }) => {
  if (observed.job) return undefined;
  const inputs = jobInputs(job.spec.process.process_graph, readResources(job, observed.resources));
  const started = { after: [startAttempt(job, status.jobName!, observed, inputs)], outcome: done('attempt started') };
  if (JSON.stringify(inputs) === JSON.stringify(status.inputs ?? [])) return started;
  const reason = status.phase === 'running' ? 'Running' : 'Queued';
  return { ...started, status: { set: { inputs }, reason, message: `Attempt ${status.jobName} started.` } };
};

/**
 * The resources as the attempt reads them: a rerun's datasets at the versions it pins. A pin no longer retained
 * fails the attempt (operator/worker/processing.ts); its inputs are then the served versions.
 */
function readResources(job: ProcessingJob, resources: readonly KubeObject[]): readonly KubeObject[] {
  if (!job.spec.rerun) return resources;
  return withPinnedVersions(resources, job.spec.rerun.datasetVersions).resources ?? resources;
}

function startAttempt(job: ProcessingJob, name: string, observed: ProcessingJobObserved, inputs: JobInput[]): Action {
  const input: ProcessingInput = {
    job: job.metadata.name,
    namespace: job.metadata.namespace ?? 'default',
    attempt: name,
    storageRoot: observed.storageRoot,
    process: job.spec.process,
    ...(job.spec.rerun && { rerun: job.spec.rerun }),
    resources: observed.resources as ProcessingInput['resources'],
    inputs,
  };
  const parts = jobParts(job.spec.process, observed.resources, observed.split);
  return { kind: 'startJob', job: { name, task: 'processing', input, ...(parts && { parts }) } };
}

export const follow: JobStep = ({ status, observed: { job: state } }) => {
  if (state?.phase !== 'running') return undefined;
  const progress = reportedProgress(state);
  return {
    status: {
      set: { phase: 'running', startedAt: status.startedAt ?? state.startedAt, ...(progress && { progress }) },
      reason: 'Running',
      message: `Attempt ${status.jobName} running.`,
    },
    outcome: done('running'),
  };
};

export const finish: JobStep = ({ observed: { job: state }, status, at }) =>
  state?.phase === 'succeeded' || state?.phase === 'cancelled' ? ended(state, status, at) : undefined;

/** Another attempt of the run after the backoff, while its worker failed and attempts remain; else the run ends. */
export const retry: JobStep = ({ run: job, observed: { job: state, backoff }, status, now, at }) => {
  if (state?.phase !== 'failed') return undefined;
  const attempt = status.attempt ?? 1;
  const inRun = attempt - (status.runFirstAttempt ?? attempt) + 1;
  if (inRun >= job.spec.maxAttempts) return ended(state, status, at);
  const error = state.error ?? { type: 'WorkerError', message: 'The attempt failed.' };
  const retryAfter =
    status.retryAfter ?? new Date(now.getTime() + retryDelaySeconds(inRun, backoff) * 1000).toISOString();
  const wait = Date.parse(retryAfter) - now.getTime();
  if (wait > 0)
    return {
      status: {
        set: { phase: 'queued', retryAfter, error },
        reason: 'Retrying',
        message: `Attempt ${inRun} of ${job.spec.maxAttempts} failed (${error.type}: ${error.message}); the next starts at ${retryAfter}.`,
      },
      outcome: { kind: 'requeueAfter', ms: wait, reason: 'retry backoff' },
    };
  return {
    status: {
      set: { phase: 'queued', attempt: attempt + 1, jobName: attemptName(job, attempt + 1), retryAfter: undefined },
      reason: 'Queued',
      message: `Attempt ${inRun + 1} of ${job.spec.maxAttempts} queued.`,
    },
    outcome: done('retrying'),
  };
};

/** The attempt's end as the run's status. */
function ended(state: JobState, status: ProcessingJobStatus, at: string): JobTransition {
  const finishedAt = state.finishedAt ?? at;
  const startedAt = status.startedAt ?? state.startedAt;
  const end = (set: ProcessingJobStatus, reason: 'Canceled' | 'Failed' | 'Finished', message: string) => ({
    status: { set, reason, message },
    event: { reason, message },
    outcome: done(set.phase === 'canceled' ? 'cancelled' : set.phase === 'error' ? 'failed' : 'finished'),
  });
  if (state.phase === 'cancelled')
    return end({ phase: 'canceled', startedAt, finishedAt }, 'Canceled', 'The run was cancelled.');
  const parsed = state.phase === 'succeeded' ? processingResultSchema.safeParse(state.result) : undefined;
  const error =
    state.phase === 'failed'
      ? (state.error ?? { type: 'WorkerError', message: 'The attempt failed.' })
      : !parsed?.success
        ? { type: 'WorkerError', message: `The worker returned an invalid result: ${parsed?.error.message}` }
        : parsed.data.outcome === 'error'
          ? parsed.data.error
          : undefined;
  const usage = parsed?.success ? parsed.data.usage : undefined;
  if (error || !parsed?.success || parsed.data.outcome !== 'finished')
    return end(
      { phase: 'error', startedAt, finishedAt, error: error!, ...(usage && { usage }) },
      'Failed',
      `${error!.type}: ${error!.message}`,
    );
  const { path, files, extent } = parsed.data;
  return end(
    {
      phase: 'finished',
      startedAt,
      finishedAt,
      results: { path, files, extent },
      usage: parsed.data.usage,
      progress: { done: 1, total: 1, percent: 100 },
    },
    'Finished',
    `Finished with ${files.map((f) => f.name).join(', ')}.`,
  );
}
