import { isDeepStrictEqual } from 'node:util';
import { isApiError } from '../../core/cluster/errors.ts';
import type { KindRef, KubeObject } from '../../core/cluster/objects.ts';
import { STRATUS_FIELD_MANAGER, type Cluster } from '../../core/cluster/port.ts';
import { contextOf } from '../../core/logging/context.ts';
import type { JobRunner } from '../jobs/runner.ts';
import type { Plan } from './actions.ts';
import { recordEvent } from './events.ts';

export interface ApplyResult {
  /** Status writes actually made (no-op writes are skipped). */
  statusWrites: number;
}

/**
 * Executes a plan for `primary` in order. The status write is compare-and-swap on the resourceVersion the
 * planner saw, so a plan made from stale state fails with 409 and the controller re-reads and re-plans.
 */
export async function applyPlan(
  cluster: Cluster,
  kind: KindRef,
  primary: KubeObject,
  plan: Plan,
  now: Date,
  jobs?: JobRunner,
  reportingInstance = 'embedded',
): Promise<ApplyResult> {
  let current = primary;
  let statusWrites = 0;
  const { name, namespace } = primary.metadata;
  for (const action of plan.actions) {
    switch (action.kind) {
      case 'apply':
        await cluster.apply(action.ref, action.object, { fieldManager: STRATUS_FIELD_MANAGER });
        break;
      case 'delete':
        // Gone already is what the plan asks for: two planners may delete the same object (a Dataset and its
        // Schedule both keep the dataset's run history), and the rest of this plan must not fail over it.
        await cluster.delete(action.ref, action.name, action.namespace).catch((err: unknown) => {
          if (!isApiError(err, 'NotFound')) throw err;
        });
        break;
      case 'patchStatus': {
        // Through JSON so that an `undefined` member counts as absent, as it will be once stored.
        const status = JSON.parse(
          JSON.stringify({ ...action.status, observedGeneration: current.metadata.generation }),
        );
        if (isDeepStrictEqual(status, current.status)) break;
        current = await cluster.updateStatus(kind, { ...current, status }, { fieldManager: STRATUS_FIELD_MANAGER });
        statusWrites++;
        break;
      }
      case 'patchStatusOf':
        await cluster.patchStatus(
          action.ref,
          action.name,
          {
            type: 'merge',
            body: {
              ...(action.resourceVersion && { metadata: { resourceVersion: action.resourceVersion } }),
              status: action.status,
            },
          },
          action.namespace,
          { fieldManager: STRATUS_FIELD_MANAGER },
        );
        break;
      case 'addFinalizer':
      case 'removeFinalizer': {
        const finalizers = current.metadata.finalizers ?? [];
        const has = finalizers.includes(action.name);
        if (has === (action.kind === 'addFinalizer')) break;
        const next =
          action.kind === 'addFinalizer' ? [...finalizers, action.name] : finalizers.filter((f) => f !== action.name);
        current = await cluster.patch(
          kind,
          name,
          {
            type: 'merge',
            body: { metadata: { resourceVersion: current.metadata.resourceVersion, finalizers: next } },
          },
          namespace,
          { fieldManager: STRATUS_FIELD_MANAGER },
        );
        break;
      }
      case 'event':
        await recordEvent(cluster, current, action, now, reportingInstance);
        break;
      case 'startJob':
        if (!jobs) throw new Error('a plan started a job but the controller has no job runner');
        // The worker's lines name the request that started the run, as the operator's do.
        jobs.start({ ...action.job, owner: { kind, name, namespace }, context: contextOf(current) });
        break;
      case 'cancelJob':
        jobs?.cancel(action.name, namespace);
        break;
    }
  }
  return { statusWrites };
}
