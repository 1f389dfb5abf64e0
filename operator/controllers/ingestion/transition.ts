import type { EventReasonOf, ReasonOf } from '../../../core/resources/conditions.ts';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import { ingestionConditions } from '../../../core/resources/ingestion/conditions.ts';
import type { Ingestion, IngestionStatus } from '../../../core/resources/ingestion/schema.ts';
import type { RunErrorRecord } from '../../../core/runs/errors.ts';
import type { Action, Outcome, Plan } from '../../runtime/actions.ts';
import { eventOf, readinessConditions, readinessOf } from '../../runtime/readiness.ts';
import { jobNameFor } from './attempt.ts';
import type { IngestionObserved } from './observed.ts';
import type { IngestionPlanOptions } from './options.ts';

export type IngestionReason = ReasonOf<typeof ingestionConditions>;
export type IngestionEventReason = EventReasonOf<typeof ingestionConditions>;

/** One reconcile of a run: the run, what was observed, and what every step derives from them alike. */
export interface RunContext {
  run: Ingestion;
  observed: IngestionObserved;
  options: IngestionPlanOptions;
  now: Date;
  /** `now` as status fields write it. */
  at: string;
  /** The run's status so far (empty before its first write). */
  status: IngestionStatus;
  /** The current attempt (`status.attempt`, from 1) and the name of its job. */
  attempt: number;
  jobName: string;
}

/** The context of the steps after the preamble, which found the run's DataSource. */
export interface StepContext extends RunContext {
  source: DataSource;
}

export function runContext(
  run: Ingestion,
  observed: IngestionObserved,
  now: Date,
  options: IngestionPlanOptions,
): RunContext {
  const status: IngestionStatus = run.status ?? {};
  const attempt = status.attempt ?? 1;
  return { run, observed, options, now, at: now.toISOString(), status, attempt, jobName: jobNameFor(run, attempt) };
}

/**
 * What a step decided, as a typed outcome: the status fields it sets with the reason its conditions take, the
 * actions around that status write, the Event it records, and how the reconcile ends. `toPlan` alone turns it into
 * the planner's actions, in one order: `before`, the status write, `after`, the Event.
 */
export interface Transition {
  /** Objects the attempt needs, or the switch of the run's target to what it wrote. */
  before?: Action[];
  /** Fields laid over the run's current status, and the reason (from the catalogue) its conditions take. */
  status?: { set: IngestionStatus; reason: IngestionReason; message: string };
  /** The attempt to start or to cancel. */
  after?: Action[];
  event?: { reason: IngestionEventReason; message: string };
  outcome: Outcome;
}

/** A step of the run's lifecycle: it decides, or returns undefined when the run is not at its stage. */
export type Step = (context: StepContext) => Transition | undefined;

export function toPlan(context: RunContext, transition: Transition): Plan {
  const { status, run, now } = context;
  const write = transition.status && {
    kind: 'patchStatus' as const,
    status: {
      ...status,
      ...transition.status.set,
      conditions: readinessConditions(
        status.conditions,
        readinessOf(ingestionConditions, transition.status.reason, transition.status.message),
        run.metadata.generation as number | undefined,
        now,
      ),
    },
  };
  const { event } = transition;
  return {
    actions: [
      ...(transition.before ?? []),
      ...(write ? [write] : []),
      ...(transition.after ?? []),
      ...(event ? [eventOf(ingestionConditions, event.reason, event.message)] : []),
    ],
    outcome: transition.outcome,
  };
}

/** The planner fails the run at once, before or after an attempt: no new attempt could cure it. */
export function failRun(context: RunContext, error: RunErrorRecord): Transition {
  return {
    status: {
      set: { phase: 'failed', finishedAt: context.at, error },
      reason: error.type,
      message: error.message,
    },
    event: { reason: error.type, message: error.message },
    outcome: { kind: 'done', reason: error.type },
  };
}
