import type { KindRef, KubeObject } from '../../core/cluster/objects.ts';
import type { JobSpec } from '../jobs/runner.ts';

/** What a planner asks for. Only the applier turns these into writes, requeues and events. */
export type Action =
  | { kind: 'apply'; ref: KindRef; object: KubeObject }
  | { kind: 'delete'; ref: KindRef; name: string; namespace?: string }
  | { kind: 'patchStatus'; status: Record<string, unknown> }
  /**
   * A merge patch of another object's status: how a finished run switches its Dataset to a new version. With the
   * `resourceVersion` the planner read it is compare-and-swap: a status computed from a stale object fails with 409.
   */
  | {
      kind: 'patchStatusOf';
      ref: KindRef;
      name: string;
      namespace?: string;
      resourceVersion?: string;
      status: Record<string, unknown>;
    }
  | { kind: 'addFinalizer'; name: string }
  | { kind: 'removeFinalizer'; name: string }
  | { kind: 'event'; type: 'Normal' | 'Warning'; reason: string; message: string }
  | { kind: 'startJob'; job: Omit<JobSpec, 'owner'> }
  | { kind: 'cancelJob'; name: string };

/** How a reconcile ends; a decision that skips work says why. */
export type Outcome = { kind: 'done'; reason: string } | { kind: 'requeueAfter'; ms: number; reason: string };

export interface Plan {
  actions: Action[];
  outcome: Outcome;
}
