import { isFinished } from '../../../core/resources/ingestion/run.ts';
import type { RunContext, StepContext, Transition } from './transition.ts';

/**
 * The fixed preamble of every reconcile, before the lifecycle's steps: a finished run plans nothing, a cancel
 * request stops the run, and a run whose DataSource does not exist fails at once. Otherwise the steps go on with
 * the source.
 */
export function preamble(context: RunContext): Transition | StepContext {
  const { run, status, observed } = context;
  if (isFinished(run)) return { outcome: { kind: 'done', reason: `run ${status.phase}` } };
  if (run.spec.cancelRequested) return cancel(context);
  const { source } = observed;
  if (!source) {
    const message = `DataSource ${run.spec.source} does not exist.`;
    // Unlike the steps' failures, this one records no Event.
    return {
      status: {
        set: { phase: 'failed', finishedAt: context.at, error: { type: 'SourceNotFound', message } },
        reason: 'SourceNotFound',
        message,
      },
      outcome: { kind: 'done', reason: 'no such source' },
    };
  }
  return { ...context, source };
}

/** A running attempt is cancelled first (its end is observed later); with none, the run is cancelled now. */
function cancel({ observed, jobName, run, at }: RunContext): Transition {
  if (observed.job?.phase === 'running')
    return {
      after: [{ kind: 'cancelJob', name: jobName }],
      outcome: { kind: 'done', reason: 'cancelling the running attempt' },
    };
  return {
    status: {
      set: { phase: 'cancelled', finishedAt: at, retryAfter: undefined },
      reason: 'Cancelled',
      message: 'The run was cancelled; committed periods are kept.',
    },
    event: { reason: 'Cancelled', message: `Run ${run.metadata.name} cancelled.` },
    outcome: { kind: 'done', reason: 'cancelled' },
  };
}
