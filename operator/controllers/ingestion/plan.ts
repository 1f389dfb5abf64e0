import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import type { Ingestion, IngestionStatus } from '../../../core/resources/ingestion/schema.ts';
import type { JobState } from '../../jobs/runner.ts';
import type { Plan } from '../../runtime/actions.ts';
import { readinessConditions, type Readiness } from '../../runtime/readiness.ts';

export interface IngestionObserved {
  /** The DataSource the run fetches, if it exists. */
  source: DataSource | undefined;
  /** The worker attempt of `status.attempt`, if the runner knows it. */
  job: JobState | undefined;
}

export interface IngestionPlanOptions {
  /** Backoff of attempt n: min(cap, base * 2^(n-1)) seconds (DESIGN.md §4: 60 and 240). */
  retryBaseSeconds: number;
  retryCapSeconds: number;
}

export const defaultIngestionPlanOptions: IngestionPlanOptions = { retryBaseSeconds: 60, retryCapSeconds: 240 };

export function jobNameFor(run: Ingestion, attempt: number): string {
  return `${run.metadata.name}-a${attempt}`;
}

export function retryDelaySeconds(failedAttempt: number, options: IngestionPlanOptions): number {
  return Math.min(options.retryCapSeconds, options.retryBaseSeconds * 2 ** (failedAttempt - 1));
}

const TERMINAL = new Set(['successful', 'failed', 'cancelled']);

/** The lifecycle of one ingestion or sync run: start, follow, retry with backoff, cancel, finish. */
export function planIngestion(
  run: Ingestion,
  observed: IngestionObserved,
  now: Date,
  options: IngestionPlanOptions = defaultIngestionPlanOptions,
): Plan {
  const status: IngestionStatus = run.status ?? {};
  const generation = run.metadata.generation as number | undefined;
  const attempt = status.attempt ?? 1;
  const jobName = jobNameFor(run, attempt);
  const at = now.toISOString();
  const write = (next: IngestionStatus, readiness: Readiness) => ({
    kind: 'patchStatus' as const,
    status: { ...next, conditions: readinessConditions(status.conditions, readiness, generation, now) },
  });

  if (status.phase && TERMINAL.has(status.phase))
    return { actions: [], outcome: { kind: 'done', reason: `run ${status.phase}` } };

  const { job } = observed;
  if (run.spec.cancelRequested) {
    if (job?.phase === 'running') {
      return {
        actions: [{ kind: 'cancelJob', name: jobName }],
        outcome: { kind: 'done', reason: 'cancelling the running attempt' },
      };
    }
    return {
      actions: [
        write(
          { ...status, phase: 'cancelled', finishedAt: at, retryAfter: undefined },
          { state: 'stalled', reason: 'Cancelled', message: 'The run was cancelled; committed periods are kept.' },
        ),
        { kind: 'event', type: 'Normal', reason: 'Cancelled', message: `Run ${run.metadata.name} cancelled.` },
      ],
      outcome: { kind: 'done', reason: 'cancelled' },
    };
  }

  if (!observed.source) {
    return {
      actions: [
        write(
          {
            ...status,
            phase: 'failed',
            finishedAt: at,
            error: { type: 'SourceNotFound', message: `DataSource ${run.spec.source} does not exist.` },
          },
          { state: 'stalled', reason: 'SourceNotFound', message: `DataSource ${run.spec.source} does not exist.` },
        ),
      ],
      outcome: { kind: 'done', reason: 'no such source' },
    };
  }

  if (!job) {
    if (status.phase === 'retrying' && status.retryAfter && Date.parse(status.retryAfter) > now.getTime()) {
      return {
        actions: [],
        outcome: {
          kind: 'requeueAfter',
          ms: Date.parse(status.retryAfter) - now.getTime(),
          reason: 'waiting to retry',
        },
      };
    }
    return {
      actions: [
        write(
          {
            ...status,
            phase: status.phase === 'retrying' ? 'running' : 'accepted',
            attempt,
            jobName,
            retryAfter: undefined,
            events: status.events ?? [],
          },
          {
            state: 'progressing',
            reason: 'Started',
            message: `Attempt ${attempt} of ${run.spec.maxAttempts} started.`,
          },
        ),
        {
          kind: 'startJob',
          job: {
            name: jobName,
            task: run.spec.mode,
            input: { ...run.spec, run: run.metadata.name, attempt, provider: observed.source.spec.provider.name },
          },
        },
      ],
      outcome: { kind: 'done', reason: 'attempt started' },
    };
  }

  if (job.phase === 'running') {
    const progress = job.progress
      ? {
          ...job.progress,
          percent: job.progress.total > 0 ? Math.round((job.progress.done / job.progress.total) * 1000) / 10 : 0,
        }
      : status.progress;
    return {
      actions: [
        write(
          { ...status, phase: 'running', startedAt: status.startedAt ?? job.startedAt, progress },
          {
            state: 'progressing',
            reason: 'Running',
            message: `Attempt ${attempt} of ${run.spec.maxAttempts} running.`,
          },
        ),
      ],
      outcome: { kind: 'done', reason: 'attempt running' },
    };
  }

  if (job.phase === 'succeeded') {
    return {
      actions: [
        write(
          {
            ...status,
            phase: 'successful',
            startedAt: status.startedAt ?? job.startedAt,
            finishedAt: job.finishedAt ?? at,
            result: job.result as Record<string, unknown>,
            error: undefined,
          },
          { state: 'ready', reason: 'Succeeded', message: `The run succeeded on attempt ${attempt}.` },
        ),
        { kind: 'event', type: 'Normal', reason: 'Succeeded', message: `Run ${run.metadata.name} succeeded.` },
      ],
      outcome: { kind: 'done', reason: 'succeeded' },
    };
  }

  if (job.phase === 'cancelled') {
    return {
      actions: [
        write(
          { ...status, phase: 'cancelled', finishedAt: job.finishedAt ?? at },
          { state: 'stalled', reason: 'Cancelled', message: 'The run was cancelled; committed periods are kept.' },
        ),
      ],
      outcome: { kind: 'done', reason: 'cancelled' },
    };
  }

  // The attempt failed.
  const error = job.error ?? { type: 'Unknown', message: 'the attempt failed' };
  if (attempt < run.spec.maxAttempts) {
    const delay = retryDelaySeconds(attempt, options);
    return {
      actions: [
        write(
          {
            ...status,
            phase: 'retrying',
            attempt: attempt + 1,
            retryAfter: new Date(now.getTime() + delay * 1000).toISOString(),
            error,
          },
          {
            state: 'progressing',
            reason: 'Retrying',
            message: `Attempt ${attempt} failed (${error.type}: ${error.message}); retrying in ${delay} s.`,
          },
        ),
        {
          kind: 'event',
          type: 'Warning',
          reason: 'AttemptFailed',
          message: `Attempt ${attempt} failed: ${error.message}`,
        },
      ],
      outcome: { kind: 'requeueAfter', ms: delay * 1000, reason: 'retry backoff' },
    };
  }
  return {
    actions: [
      write(
        { ...status, phase: 'failed', finishedAt: job.finishedAt ?? at, error },
        {
          state: 'stalled',
          reason: error.type,
          message: `The run failed after ${attempt} attempt(s): ${error.message}`,
        },
      ),
      {
        kind: 'event',
        type: 'Warning',
        reason: 'Failed',
        message: `Run ${run.metadata.name} failed: ${error.message}`,
      },
    ],
    outcome: { kind: 'done', reason: 'failed' },
  };
}
