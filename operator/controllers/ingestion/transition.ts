import type { ReasonOf } from '../../../core/resources/conditions.ts';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import { ingestionConditions } from '../../../core/resources/ingestion/conditions.ts';
import type { Ingestion, IngestionStatus } from '../../../core/resources/ingestion/schema.ts';
import type { RunErrorRecord } from '../../../core/runs/errors.ts';
import type { Plan } from '../../runtime/actions.ts';
import {
  toPlan as runPlan,
  type RunRecord,
  type RunStep,
  type Transition as RunTransition,
} from '../../runtime/run-lifecycle.ts';
import { jobNameFor } from './attempt.ts';
import type { IngestionObserved } from './observed.ts';
import type { RunOptions } from '../../../core/runs/options.ts';

export type IngestionReason = ReasonOf<typeof ingestionConditions>;

/** One reconcile of a run: the run, what was observed, and what every step derives from them alike. */
export interface RunContext {
  run: Ingestion;
  observed: IngestionObserved;
  options: RunOptions;
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

export function runContext(run: Ingestion, observed: IngestionObserved, now: Date, options: RunOptions): RunContext {
  const status: IngestionStatus = run.status ?? {};
  const attempt = status.attempt ?? 1;
  return { run, observed, options, now, at: now.toISOString(), status, attempt, jobName: jobNameFor(run, attempt) };
}

/** What a step of the run lifecycle (operator/runtime/run-lifecycle.ts) decided for an ingestion run. */
export type Transition = RunTransition<typeof ingestionConditions, IngestionStatus>;

export type Step = RunStep<StepContext, typeof ingestionConditions, IngestionStatus>;

/** How an ingestion run's decisions are written: the catalogue's conditions over the decided fields. */
export const ingestionRecord: RunRecord<RunContext, typeof ingestionConditions, IngestionStatus> = {
  catalogue: ingestionConditions,
};

export const toPlan = (context: RunContext, transition: Transition): Plan =>
  runPlan(ingestionRecord, context, transition);

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
