/**
 * The lifecycle of a Delivery (docs/exports.md), as an adapter of the run lifecycle
 * (operator/runtime/run-lifecycle.ts); its steps are in steps.ts, its status in status.ts:
 *
 *   accepted --its turn at the target--> running --every chunk has an outcome--> successful | failed
 *   running --the worker ended early--> retrying --backoff--> running (resumes from the checkpoint)
 */
import { deliveryConditions } from '../../../core/resources/delivery/conditions.ts';
import type { Delivery, DeliveryStatus } from '../../../core/resources/delivery/schema.ts';
import type { Plan } from '../../runtime/actions.ts';
import { planRun, type RunLifecycle } from '../../runtime/run-lifecycle.ts';
import type { DeliveryContext, DeliveryObserved } from './observed.ts';
import { deliveryStatus } from './status.ts';
import { CHECKPOINT_FINALIZER, deleted, finish, finished, follow, retry, start } from './steps.ts';

export { CHECKPOINT_FINALIZER } from './steps.ts';
export type { DeliveryObserved } from './observed.ts';

const deliveryLifecycle: RunLifecycle<DeliveryContext, DeliveryContext, typeof deliveryConditions, DeliveryStatus> = {
  catalogue: deliveryConditions,
  finalizer: CHECKPOINT_FINALIZER,
  nextStatus: deliveryStatus,
  // A reconcile that finds the checkpoint and the decision as they were writes nothing.
  writesOnlyChanges: true,
  deleted,
  finished,
  steps: [start, follow, finish, retry],
};

export function planDelivery(delivery: Delivery, observed: DeliveryObserved, now: Date): Plan {
  return planRun(deliveryLifecycle, {
    run: delivery,
    observed,
    now,
    at: now.toISOString(),
    status: delivery.status ?? {},
  });
}
