import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import type { Plan } from '../../runtime/actions.ts';
import { finish } from './finish.ts';
import { follow } from './follow.ts';
import type { IngestionObserved } from './observed.ts';
import { defaultIngestionPlanOptions, type IngestionPlanOptions } from './options.ts';
import { preamble } from './preamble.ts';
import { retry } from './retry.ts';
import { start } from './start.ts';
import { runContext, toPlan, type Step } from './transition.ts';

/** The lifecycle's steps in order: the first that finds the run at its stage decides the reconcile. */
export const steps: readonly Step[] = [start, follow, finish, retry];

/**
 * The lifecycle of one ingestion, sync or feature refresh run: the preamble (finished, cancelled, no source), then
 * start an attempt, follow it, finish the run with its result, or retry it with backoff. Each step owns the
 * conditions it sets; `toPlan` turns its decision into actions.
 */
export function planIngestion(
  run: Ingestion,
  observed: IngestionObserved,
  now: Date,
  options: IngestionPlanOptions = defaultIngestionPlanOptions,
): Plan {
  const context = runContext(run, observed, now, options);
  const afterPreamble = preamble(context);
  if ('outcome' in afterPreamble) return toPlan(context, afterPreamble);
  for (const step of steps) {
    const transition = step(afterPreamble);
    if (transition) return toPlan(context, transition);
  }
  // Every phase of an attempt has its step: no decision is a bug, not a state to plan around.
  throw new Error(`no step decides run ${run.metadata.name} (attempt ${observed.job?.name}: ${observed.job?.phase})`);
}
