import { isFinished } from '../../../core/resources/ingestion/run.ts';
import type { IngestionStatus } from '../../../core/resources/ingestion/schema.ts';
import type { ingestionConditions } from '../../../core/resources/ingestion/conditions.ts';
import { runPreamble, type RunPreamble } from '../../runtime/run-lifecycle.ts';
import type { RunContext, StepContext, Transition } from './transition.ts';

/**
 * The preamble of an ingestion run, before the lifecycle's steps: a finished run plans nothing, a cancel request
 * stops the run, and a run whose DataSource does not exist fails at once. Otherwise the steps go on with the
 * source. An ingestion owns no files of its own (its dataset does): a deleted run simply goes.
 */
export const ingestionPreamble: RunPreamble<RunContext, StepContext, typeof ingestionConditions, IngestionStatus> = {
  finished: ({ run, status }) =>
    isFinished(run) ? { outcome: { kind: 'done', reason: `run ${status.phase}` } } : undefined,
  cancel: (context) => (context.run.spec.cancelRequested ? cancel(context) : undefined),
  ready: (context) => {
    const { source } = context.observed;
    if (source) return { ...context, source };
    const message = `DataSource ${context.run.spec.source} does not exist.`;
    // Unlike the steps' failures, this one records no Event.
    return {
      status: {
        set: { phase: 'failed', finishedAt: context.at, error: { type: 'SourceNotFound', message } },
        reason: 'SourceNotFound',
        message,
      },
      outcome: { kind: 'done', reason: 'no such source' },
    };
  },
};

export const preamble = (context: RunContext): Transition | StepContext => runPreamble(ingestionPreamble, context);

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
