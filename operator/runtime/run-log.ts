import type { Logger } from 'pino';
import type { KubeObject } from '../../core/cluster/objects.ts';
import type { Plan } from './actions.ts';

interface RunStatus {
  phase?: string;
  attempt?: number;
  error?: { type?: string; message?: string };
}

/**
 * What the operator says about a run it has just acted on, in the run's own log (its background file): each
 * change of phase, each worker attempt started or cancelled, each event recorded. A reconcile that changed
 * nothing says nothing, so a run's log reads as its history.
 */
export function logRunPlan(log: Logger, run: KubeObject, plan: Plan): void {
  const before = (run.status ?? {}) as RunStatus;
  for (const action of plan.actions) {
    switch (action.kind) {
      case 'patchStatus': {
        const status = action.status as RunStatus;
        if (status.phase === undefined || status.phase === before.phase) break;
        const fields = { phase: status.phase, previous: before.phase, attempt: status.attempt, error: status.error };
        const message = `run ${status.phase}`;
        if (status.phase === 'failed') log.error(fields, message);
        else if (status.phase === 'retrying') log.warn(fields, message);
        else log.info(fields, message);
        break;
      }
      case 'startJob': {
        const { name, task, parts } = action.job;
        log.info({ job: name, task, ...(parts && { parts: parts.count }) }, 'worker attempt started');
        break;
      }
      case 'cancelJob':
        log.info({ job: action.name }, 'worker attempt asked to stop');
        break;
      case 'event':
        log[action.type === 'Warning' ? 'warn' : 'info']({ reason: action.reason }, action.message);
        break;
    }
  }
}
