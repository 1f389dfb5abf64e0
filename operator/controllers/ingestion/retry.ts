import type { RunErrorRecord } from '../../../core/runs/errors.ts';
import { retryDelaySeconds } from '../../../core/runs/backoff.ts';
import type { Step } from './transition.ts';

/** A failed attempt whose runner gave no error. */
const unknownFailure: RunErrorRecord = { type: 'Unknown', message: 'the attempt failed' };

/**
 * The retry step, once the attempt failed: another attempt after the backoff while attempts remain, whatever the
 * error, else the run fails with the attempt's error.
 */
export const retry: Step = ({ observed: { job }, attempt, run, now, at, options }) => {
  if (job?.phase !== 'failed') return undefined;
  const error = job.error ?? unknownFailure;
  if (attempt < run.spec.maxAttempts) {
    const delay = retryDelaySeconds(attempt, options.backoff);
    return {
      status: {
        set: {
          phase: 'retrying',
          attempt: attempt + 1,
          retryAfter: new Date(now.getTime() + delay * 1000).toISOString(),
          error,
        },
        reason: 'Retrying',
        message: `Attempt ${attempt} failed (${error.type}: ${error.message}); retrying in ${delay} s.`,
      },
      event: { reason: 'AttemptFailed', message: `Attempt ${attempt} failed: ${error.message}` },
      outcome: { kind: 'requeueAfter', ms: delay * 1000, reason: 'retry backoff' },
    };
  }
  return {
    status: {
      set: { phase: 'failed', finishedAt: job.finishedAt ?? at, error },
      reason: error.type,
      message: `The run failed after ${attempt} attempt(s): ${error.message}`,
    },
    event: { reason: 'Failed', message: `Run ${run.metadata.name} failed: ${error.message}` },
    outcome: { kind: 'done', reason: 'failed' },
  };
};
