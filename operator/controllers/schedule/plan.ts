import { runsPastHistory } from '../../../core/resources/ingestion/history.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import type { Schedule } from '../../../core/resources/schedule/schema.ts';
import { scheduleConditions } from '../../../core/resources/schedule/conditions.ts';
import type { Plan } from '../../runtime/actions.ts';
import { eventOf, readinessConditions, readinessOf, type Readiness } from '../../runtime/readiness.ts';
import { checkDataset, type ScheduleCheckObserved } from './check.ts';
import { nextTick, ScheduleSpecError } from './cron.ts';

export interface ScheduleObserved extends ScheduleCheckObserved {
  /** Only the leader checks schedules; other replicas plan nothing. */
  leader: boolean;
  /** The runs this schedule started (labelled with it), finished or not. */
  scheduledRuns: readonly Ingestion[];
}

/** How often a replica that is not the leader looks again (leadership can move to it). */
export const FOLLOWER_RECHECK_MS = 30_000;

type ScheduleStatus = NonNullable<Schedule['status']>;

/**
 * A schedule's clock (`planClock`), and its history: the finished runs it started past its history limits are
 * deleted.
 */
export function planSchedule(schedule: Schedule, observed: ScheduleObserved, now: Date): Plan {
  const plan = planClock(schedule, observed, now);
  const expired = observed.leader ? runsPastHistory(observed.scheduledRuns, schedule.spec) : [];
  if (expired.length === 0) return plan;
  const namespace = schedule.metadata.namespace;
  return {
    actions: [
      ...expired.map((name) => ({ kind: 'delete' as const, ref: ingestionKind, name, namespace })),
      ...plan.actions,
    ],
    outcome: { ...plan.outcome, reason: `${plan.outcome.reason}; ${expired.length} runs past the history limits` },
  };
}

/**
 * Waits for the next tick of the cron in its time zone, then checks the dataset once and records the outcome.
 * Ticks missed while no leader ran are caught up by one check, not one per tick; a spec change restarts the clock
 * from now.
 */
function planClock(schedule: Schedule, observed: ScheduleObserved, now: Date): Plan {
  if (!observed.leader)
    return { actions: [], outcome: { kind: 'requeueAfter', ms: FOLLOWER_RECHECK_MS, reason: 'not the leader' } };
  const status: ScheduleStatus = schedule.status ?? {};
  const generation = schedule.metadata.generation as number | undefined;
  const write = (next: ScheduleStatus, readiness: Readiness) => ({
    kind: 'patchStatus' as const,
    status: { ...next, conditions: readinessConditions(status.conditions, readiness, generation, now) },
  });

  if (!schedule.spec.enabled)
    return {
      actions: [
        write({ ...status, nextCheck: undefined }, readinessOf(scheduleConditions, 'Disabled', 'Checks are off.')),
      ],
      outcome: { kind: 'done', reason: 'disabled' },
    };

  let due: Date;
  let following: Date;
  try {
    const specChanged = status.observedGeneration !== generation;
    due = status.nextCheck && !specChanged ? new Date(status.nextCheck) : nextTick(schedule.spec, now);
    following = nextTick(schedule.spec, now);
  } catch (err) {
    if (!(err instanceof ScheduleSpecError)) throw err;
    return {
      actions: [
        write(
          { ...status, nextCheck: undefined, lastOutcome: 'error', lastMessage: err.message },
          readinessOf(scheduleConditions, 'InvalidSchedule', err.message),
        ),
      ],
      outcome: { kind: 'done', reason: 'invalid schedule' },
    };
  }

  if (now < due)
    return {
      actions: [
        write(
          { ...status, nextCheck: due.toISOString() },
          readinessOf(scheduleConditions, 'Waiting', `Next check at ${due.toISOString()}.`),
        ),
      ],
      outcome: { kind: 'requeueAfter', ms: due.getTime() - now.getTime(), reason: 'waiting for the next tick' },
    };

  const check = checkDataset(schedule, observed, due);
  return {
    actions: [
      ...(check.run ? [{ kind: 'apply' as const, ref: ingestionKind, object: check.run }] : []),
      write(
        {
          ...status,
          lastCheck: now.toISOString(),
          nextCheck: following.toISOString(),
          lastOutcome: check.outcome,
          lastMessage: check.message,
          lastJobId: check.run?.metadata.name ?? status.lastJobId,
        },
        readinessOf(scheduleConditions, check.outcome === 'error' ? 'CheckFailed' : 'Checked', check.message),
      ),
      ...(check.run ? [eventOf(scheduleConditions, 'Submitted', check.message)] : []),
    ],
    outcome: { kind: 'requeueAfter', ms: following.getTime() - now.getTime(), reason: `checked: ${check.outcome}` },
  };
}
