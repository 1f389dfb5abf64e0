/**
 * The lifecycle of an AnalyticsTable (docs/analytics.md), as an adapter of the run lifecycle
 * (operator/runtime/run-lifecycle.ts); its steps are in steps.ts:
 *
 *   Waiting --sources serve data--> Building --attempt ends--> Ready | Retrying --> ... | Failed
 *   Ready | Failed --a source or the spec changes--> Building (the served table stays until the new one is published)
 */
import { analyticsTableConditions } from '../../../core/resources/analytics-table/conditions.ts';
import type { AnalyticsTable, AnalyticsTableStatus } from '../../../core/resources/analytics-table/schema.ts';
import type { Plan } from '../../runtime/actions.ts';
import { planRun, type RunLifecycle } from '../../runtime/run-lifecycle.ts';
import {
  deleted,
  finish,
  finished,
  follow,
  retry,
  start,
  TABLE_FINALIZER,
  type AnalyticsTableObserved,
  type TableContext,
} from './steps.ts';

const analyticsTableLifecycle: RunLifecycle<
  TableContext,
  TableContext,
  typeof analyticsTableConditions,
  AnalyticsTableStatus
> = {
  catalogue: analyticsTableConditions,
  finalizer: TABLE_FINALIZER,
  nextStatus: ({ status, run }, set) =>
    set && { ...status, ...set, observedGeneration: (run.metadata as { generation?: number }).generation },
  writesOnlyChanges: true,
  deleted,
  finished,
  steps: [start, follow, finish, retry],
};

export function planAnalyticsTable(table: AnalyticsTable, observed: AnalyticsTableObserved, now: Date): Plan {
  return planRun(analyticsTableLifecycle, { run: table, observed, now, status: table.status ?? {} });
}
