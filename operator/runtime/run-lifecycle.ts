/**
 * The lifecycle every run kind shares (an ingestion, sync or feature refresh run, a batch job's run, a delivery):
 * a fixed preamble (a deleted run releases its files and finalizer, an ended run plans nothing, a cancel request
 * stops it, and what the steps need must exist), then the ordered steps (start an attempt, follow it, finish the
 * run with its result, or retry it after the backoff). Each step decides a `Transition`; `toPlan` alone turns it
 * into actions. A kind supplies a `RunLifecycle`: its condition catalogue and its steps, nothing more.
 */
import type { ObjectMeta } from '../../core/cluster/objects.ts';
import type { ConditionCatalogue, Condition, EventReasonOf, ReasonOf } from '../../core/resources/conditions.ts';
import type { JobState } from '../jobs/runner.ts';
import type { Action, Outcome, Plan } from './actions.ts';
import { removeFilesThenRelease, type FilesRemoval } from './files-removal.ts';
import { eventOf, readinessConditions, readinessOf } from './readiness.ts';

/** The status members the lifecycle itself reads of every run kind. */
export type RunStatusBase = Record<string, unknown> & { conditions?: Condition[] };

/** What the lifecycle reads of a run resource (its metadata as the kinds' schemas type it: loose). */
export interface RunResource<S extends RunStatusBase> {
  metadata: { name: string; [member: string]: unknown };
  status?: S;
}

/** One reconcile of a run: the run and the clock; a kind's context adds what it observed. */
export interface RunContext<R extends RunResource<RunStatusBase>> {
  run: R;
  now: Date;
}

/**
 * What a step decided, as a typed outcome: the status fields it sets with the reason its conditions take, the
 * actions around that status write, the Event it records, and how the reconcile ends.
 */
export interface Transition<C extends ConditionCatalogue, S> {
  /** Objects the attempt needs, or the switch of the run's target to what it wrote. */
  before?: Action[];
  /** Fields laid over the run's current status, and the reason (from the catalogue) its conditions take. */
  status?: { set: S; reason: ReasonOf<C>; message: string };
  /** The attempt to start or to cancel, or the removal of the run's files. */
  after?: Action[];
  event?: { reason: EventReasonOf<C>; message: string };
  outcome: Outcome;
}

/** A step of the lifecycle: it decides, or returns undefined when the run is not at its stage. */
export type RunStep<Ctx, C extends ConditionCatalogue, S> = (context: Ctx) => Transition<C, S> | undefined;

/** How a kind's decisions become a status write, besides its catalogue's conditions. */
export interface RunRecord<Ctx, C extends ConditionCatalogue, S> {
  catalogue: C;
  /** Holds a deleted run until its files are removed; none for a kind whose runs leave no files of their own. */
  finalizer?: string;
  /** The status a transition writes; by default its fields over the run's. Undefined writes nothing. */
  nextStatus?: (context: Ctx, set: S | undefined) => S | undefined;
  /** Whether a status write that changes nothing (fields, Ready's reason and message) is left out. */
  writesOnlyChanges?: boolean;
}

/** The preamble's checks of a kind, in order; `ready` gives the steps what they need, or ends the run. */
export interface RunPreamble<Ctx, Ready, C extends ConditionCatalogue, S> {
  /** A deleted run: the files it owns are removed, then its finalizer goes (`filesRemoval`). */
  deleted?: RunStep<Ctx, C, S>;
  /** An ended run plans nothing (or trims what it leaves); a new request may start it again. */
  finished: RunStep<Ctx, C, S>;
  cancel?: RunStep<Ctx, C, S>;
  ready?: (context: Ctx) => Ready | Transition<C, S>;
}

export interface RunLifecycle<Ctx, Ready, C extends ConditionCatalogue, S>
  extends RunRecord<Ctx, C, S>, RunPreamble<Ctx, Ready, C, S> {
  /** The first that finds the run at its stage decides the reconcile. */
  steps: readonly [
    start: RunStep<Ready, C, S>,
    follow: RunStep<Ready, C, S>,
    finish: RunStep<Ready, C, S>,
    retry: RunStep<Ready, C, S>,
  ];
}

/** The preamble of a reconcile: a transition that ends it, or the context the steps go on with. */
export function runPreamble<
  Ctx extends RunContext<RunResource<S>>,
  Ready,
  C extends ConditionCatalogue,
  S extends RunStatusBase,
>(preamble: RunPreamble<Ctx, Ready, C, S>, context: Ctx): Transition<C, S> | Ready {
  const deleted = context.run.metadata.deletionTimestamp ? preamble.deleted?.(context) : undefined;
  const ended = deleted ?? preamble.finished(context) ?? preamble.cancel?.(context);
  if (ended) return ended;
  return preamble.ready ? preamble.ready(context) : (context as unknown as Ready);
}

export function planRun<
  Ctx extends RunContext<RunResource<S>>,
  Ready extends object,
  C extends ConditionCatalogue,
  S extends RunStatusBase,
>(lifecycle: RunLifecycle<Ctx, Ready, C, S>, context: Ctx): Plan {
  const ready = runPreamble(lifecycle, context);
  if ('outcome' in ready) return toPlan(lifecycle, context, ready);
  for (const step of lifecycle.steps) {
    const transition = step(ready);
    if (transition) return toPlan(lifecycle, context, transition);
  }
  // Every phase of an attempt has its step: no decision is a bug, not a state to plan around.
  throw new Error(`no step decides run ${context.run.metadata.name}`);
}

/**
 * The one place a decision becomes actions, in one order: the finalizer a run that owns files needs, `before`,
 * the status write with the conditions of the transition's reason, `after`, the Event.
 */
export function toPlan<Ctx extends RunContext<RunResource<S>>, C extends ConditionCatalogue, S extends RunStatusBase>(
  record: RunRecord<Ctx, C, S>,
  context: Ctx,
  transition: Transition<C, S>,
): Plan {
  const { run, now } = context;
  const { generation, deletionTimestamp, finalizers } = run.metadata as ObjectMeta;
  const status = (run.status ?? {}) as S;
  const decided = transition.status;
  const next = record.nextStatus ? record.nextStatus(context, decided?.set) : decided && { ...status, ...decided.set };
  const write =
    next && (!record.writesOnlyChanges || changes(status, next, decided))
      ? {
          kind: 'patchStatus' as const,
          status: {
            ...next,
            conditions: decided
              ? readinessConditions(
                  status.conditions,
                  readinessOf(record.catalogue, decided.reason, decided.message),
                  generation,
                  now,
                )
              : status.conditions,
          },
        }
      : undefined;
  const { finalizer } = record;
  const { event } = transition;
  return {
    actions: [
      ...(finalizer && !deletionTimestamp && !finalizers?.includes(finalizer)
        ? [{ kind: 'addFinalizer' as const, name: finalizer }]
        : []),
      ...(transition.before ?? []),
      ...(write ? [write] : []),
      ...(transition.after ?? []),
      ...(event ? [eventOf(record.catalogue, event.reason, event.message)] : []),
    ],
    outcome: transition.outcome,
  };
}

/** Whether a write would change the status: its fields, or Ready's reason and message. */
function changes<S extends RunStatusBase>(
  status: S,
  next: S,
  decided: { reason: string; message: string } | undefined,
): boolean {
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  return (
    JSON.stringify({ ...next, conditions: undefined }) !== JSON.stringify({ ...status, conditions: undefined }) ||
    (decided !== undefined && (ready?.reason !== decided.reason || ready.message !== decided.message))
  );
}

/**
 * A deleted run's transition: its attempt stops, a worker removes its files, then the finalizer goes; files the
 * worker could not remove are named in a FilesLeft Warning.
 */
export function filesRemoval(removal: FilesRemoval): {
  after?: Action[];
  event?: { reason: 'FilesLeft'; message: string };
  outcome: Outcome;
} {
  const { filesLeft, actions, outcome } = removeFilesThenRelease(removal);
  return { after: actions, outcome, ...(filesLeft && { event: { reason: 'FilesLeft', message: filesLeft } }) };
}

/** The attempt's last report as a run's progress, with its percent; undefined before its first report. */
export function reportedProgress(job: JobState | undefined) {
  if (!job?.progress) return undefined;
  const { done, total } = job.progress;
  return { ...job.progress, percent: total > 0 ? Math.round((done / total) * 1000) / 10 : 0 };
}
