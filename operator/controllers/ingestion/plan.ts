import type { ingestionConditions } from '../../../core/resources/ingestion/conditions.ts';
import type { Ingestion, IngestionStatus } from '../../../core/resources/ingestion/schema.ts';
import type { Plan } from '../../runtime/actions.ts';
import { planRun, type RunLifecycle } from '../../runtime/run-lifecycle.ts';
import { finish } from './finish.ts';
import { follow } from './follow.ts';
import type { IngestionObserved } from './observed.ts';
import { defaultRunOptions, type RunOptions } from '../../../core/runs/options.ts';
import { ingestionPreamble } from './preamble.ts';
import { retry } from './retry.ts';
import { start } from './start.ts';
import { ingestionRecord, runContext, type RunContext, type StepContext } from './transition.ts';

/** The lifecycle's steps in order: the first that finds the run at its stage decides the reconcile. */
export const steps = [start, follow, finish, retry] as const;

const ingestionLifecycle: RunLifecycle<RunContext, StepContext, typeof ingestionConditions, IngestionStatus> = {
  ...ingestionRecord,
  ...ingestionPreamble,
  steps,
};

/**
 * The lifecycle of one ingestion, sync or feature refresh run (operator/runtime/run-lifecycle.ts): the preamble
 * (finished, cancelled, no source), then start an attempt, follow it, finish the run with its result, or retry it
 * with backoff. Each step owns the conditions it sets.
 */
export function planIngestion(
  run: Ingestion,
  observed: IngestionObserved,
  now: Date,
  options: RunOptions = defaultRunOptions,
): Plan {
  return planRun(ingestionLifecycle, runContext(run, observed, now, options));
}
