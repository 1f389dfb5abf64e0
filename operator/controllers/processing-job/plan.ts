/**
 * The lifecycle of a ProcessingJob (openEO's batch job statuses, docs/processing.md#batch-jobs):
 *
 *   created --queuedAt--> queued --attempt runs--> running --> finished | error
 *   queued | running --cancelRequested--> canceled
 *   finished | error | canceled --a later queuedAt--> queued (the previous results go)
 *
 * A run is asked for by a new `spec.queuedAt`; each run has one attempt (a graph that fails fails again), named
 * `<job>-a<n>` with `n` counted across runs. A deleted job is cancelled, then its files are removed.
 */
import type { KubeObject } from '../../../core/cluster/objects.ts';
import { processingJobConditions } from '../../../core/resources/processing-job/conditions.ts';
import type { ProcessingJob, ProcessingJobStatus } from '../../../core/resources/processing-job/schema.ts';
import type { ReasonOf } from '../../../core/resources/conditions.ts';
import { jobPath } from '../../../core/stores/layout.ts';
import { jobParts, type JobSplitOptions } from '../../../core/processing/jobs/split.ts';
import type { JobState } from '../../jobs/runner.ts';
import type { Action, Outcome, Plan } from '../../runtime/actions.ts';
import { removeFilesThenRelease } from '../../runtime/files-removal.ts';
import { eventOf, readinessConditions, readinessOf } from '../../runtime/readiness.ts';
import { processingResultSchema, type ProcessingInput } from '../../worker/processing-input.ts';
import { retryDelaySeconds } from '../../../core/runs/backoff.ts';

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
  split?: JobSplitOptions;
}

type Reason = ReasonOf<typeof processingJobConditions>;

interface Decision {
  set?: ProcessingJobStatus;
  reason?: Reason;
  message?: string;
  actions?: Action[];
  event?: 'Finished' | 'Failed' | 'Canceled' | 'FilesLeft';
  outcome: Outcome;
}

const done = (reason: string): Outcome => ({ kind: 'done', reason });

export const attemptName = (job: ProcessingJob, attempt: number) => `${job.metadata.name}-a${attempt}`;
export const cleanupName = (job: ProcessingJob) => `${job.metadata.name}-gc`;

function startAttempt(job: ProcessingJob, name: string, observed: ProcessingJobObserved): Action {
  const input: ProcessingInput = {
    job: job.metadata.name,
    namespace: job.metadata.namespace ?? 'default',
    attempt: name,
    storageRoot: observed.storageRoot,
    process: job.spec.process,
    ...(job.spec.rerun && { rerun: job.spec.rerun }),
    resources: observed.resources as ProcessingInput['resources'],
  };
  const parts = jobParts(job.spec.process, observed.resources, observed.split);
  return { kind: 'startJob', job: { name, task: 'processing', input, ...(parts && { parts }) } };
}

/** The attempt's end as the run's status. */
function ended(state: JobState, status: ProcessingJobStatus, at: string): Decision {
  const finishedAt = state.finishedAt ?? at;
  const startedAt = status.startedAt ?? state.startedAt;
  if (state.phase === 'cancelled')
    return {
      set: { phase: 'canceled', startedAt, finishedAt },
      reason: 'Canceled',
      message: 'The run was cancelled.',
      event: 'Canceled',
      outcome: done('cancelled'),
    };
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
    return {
      set: { phase: 'error', startedAt, finishedAt, error: error!, ...(usage && { usage }) },
      reason: 'Failed',
      message: `${error!.type}: ${error!.message}`,
      event: 'Failed',
      outcome: done('failed'),
    };
  const { path, files, extent } = parsed.data;
  return {
    set: {
      phase: 'finished',
      startedAt,
      finishedAt,
      results: { path, files, extent },
      usage: parsed.data.usage,
      progress: { done: 1, total: 1, percent: 100 },
    },
    reason: 'Finished',
    message: `Finished with ${files.map((f) => f.name).join(', ')}.`,
    event: 'Finished',
    outcome: done('finished'),
  };
}

/** A deleted job: its attempt stops, a worker removes its directory, then the finalizer goes. */
function deleted(job: ProcessingJob, observed: ProcessingJobObserved): Decision {
  const namespace = job.metadata.namespace ?? 'default';
  const input = { job: job.metadata.name, namespace, storageRoot: observed.storageRoot };
  const { filesLeft, ...decision } = removeFilesThenRelease({
    running: observed.job?.phase === 'running' ? job.status!.jobName! : undefined,
    cleanup: observed.cleanup,
    job: { name: cleanupName(job), task: 'remove-job-files', input },
    finalizer: RESULTS_FINALIZER,
    left: (why) =>
      `The files of job ${job.metadata.name} stay at ${jobPath(namespace, job.metadata.name)} under the store: ${why}.`,
  });
  return filesLeft ? { ...decision, event: 'FilesLeft', message: filesLeft } : decision;
}

function decide(job: ProcessingJob, observed: ProcessingJobObserved, now: Date): Decision {
  const at = now.toISOString();
  const status = job.status ?? {};
  const attemptRunning = observed.job?.phase === 'running';
  if (job.metadata.deletionTimestamp) return deleted(job, observed);
  const { queuedAt } = job.spec;
  if (queuedAt !== undefined && queuedAt !== status.queuedAt) {
    // A new run. An attempt of the previous one that still runs is stopped first; its end starts this one.
    if (attemptRunning)
      return { actions: [{ kind: 'cancelJob', name: status.jobName! }], outcome: done('stopping the previous run') };
    const attempt = (status.attempt ?? 0) + 1;
    return {
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
        error: undefined,
      },
      reason: 'Queued',
      message: `Run of ${queuedAt} queued.`,
      outcome: done('queued'),
    };
  }
  if (status.phase === undefined)
    return { set: { phase: 'created' }, reason: 'Created', message: 'Created.', outcome: done('created') };
  if (status.phase !== 'queued' && status.phase !== 'running') return { outcome: done(`job ${status.phase}`) };
  const state = observed.job;
  if (job.spec.cancelRequested) {
    if (attemptRunning) return { actions: [{ kind: 'cancelJob', name: status.jobName! }], outcome: done('cancelling') };
    if (!state || state.phase !== 'cancelled')
      return {
        set: { phase: 'canceled', finishedAt: at },
        reason: 'Canceled',
        message: 'The run was cancelled before its attempt ran.',
        event: 'Canceled',
        outcome: done('cancelled'),
      };
  }
  if (!state)
    // Not started yet, or its runner lost it (an embedded operator that restarted): start it (again).
    return { actions: [startAttempt(job, status.jobName!, observed)], outcome: done('attempt started') };
  if (state.phase === 'running') {
    const progress = state.progress && {
      ...state.progress,
      percent: state.progress.total > 0 ? Math.round((state.progress.done / state.progress.total) * 1000) / 10 : 0,
    };
    return {
      set: { phase: 'running', startedAt: status.startedAt ?? state.startedAt, ...(progress && { progress }) },
      reason: 'Running',
      message: `Attempt ${status.jobName} running.`,
      outcome: done('running'),
    };
  }
  if (state.phase === 'failed') {
    const retry = retried(job, state, status, now);
    if (retry) return retry;
  }
  return ended(state, status, at);
}

/** Another attempt of the run after the backoff, when its worker failed and attempts remain; undefined otherwise. */
function retried(job: ProcessingJob, state: JobState, status: ProcessingJobStatus, now: Date): Decision | undefined {
  const attempt = status.attempt ?? 1;
  const inRun = attempt - (status.runFirstAttempt ?? attempt) + 1;
  if (inRun >= job.spec.maxAttempts) return undefined;
  const error = state.error ?? { type: 'WorkerError', message: 'The attempt failed.' };
  const retryAfter = status.retryAfter ?? new Date(now.getTime() + retryDelaySeconds(inRun) * 1000).toISOString();
  const wait = Date.parse(retryAfter) - now.getTime();
  if (wait > 0)
    return {
      set: { phase: 'queued', retryAfter, error },
      reason: 'Retrying',
      message: `Attempt ${inRun} of ${job.spec.maxAttempts} failed (${error.type}: ${error.message}); the next starts at ${retryAfter}.`,
      outcome: { kind: 'requeueAfter', ms: wait, reason: 'retry backoff' },
    };
  return {
    set: { phase: 'queued', attempt: attempt + 1, jobName: attemptName(job, attempt + 1), retryAfter: undefined },
    reason: 'Queued',
    message: `Attempt ${inRun + 1} of ${job.spec.maxAttempts} queued.`,
    outcome: done('retrying'),
  };
}

export function planProcessingJob(job: ProcessingJob, observed: ProcessingJobObserved, now: Date): Plan {
  const at = now.toISOString();
  const decision = decide(job, observed, now);
  const status = job.status ?? {};
  const finalizer: Action[] =
    job.metadata.deletionTimestamp || (job.metadata.finalizers as string[] | undefined)?.includes(RESULTS_FINALIZER)
      ? []
      : [{ kind: 'addFinalizer', name: RESULTS_FINALIZER }];
  const write: Action[] =
    decision.set && decision.reason
      ? [
          {
            kind: 'patchStatus',
            status: {
              ...status,
              ...decision.set,
              updatedAt: at,
              conditions: readinessConditions(
                status.conditions,
                readinessOf(processingJobConditions, decision.reason, decision.message ?? decision.reason),
                job.metadata.generation as number | undefined,
                now,
              ),
            },
          },
        ]
      : [];
  const event = decision.event ? [eventOf(processingJobConditions, decision.event, decision.message ?? '')] : [];
  return { actions: [...finalizer, ...write, ...(decision.actions ?? []), ...event], outcome: decision.outcome };
}
