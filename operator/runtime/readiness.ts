import {
  ConditionType,
  setCondition,
  type Condition,
  type ConditionCatalogue,
  type EventReasonOf,
  type ReadinessState,
  type ReasonOf,
} from '../../core/resources/conditions.ts';
import type { Action } from './actions.ts';

export interface Readiness {
  state: ReadinessState;
  reason: string;
  message: string;
}

/** A summary by a reason of the kind's catalogue, which decides its state (and so its polarity). */
export function readinessOf<C extends ConditionCatalogue>(
  catalogue: C,
  reason: ReasonOf<C>,
  message: string,
): Readiness {
  return { state: catalogue.reasons[reason].state, reason, message };
}

/** An Event by a reason of the kind's catalogue, which decides its type. */
export function eventOf<C extends ConditionCatalogue>(
  catalogue: C,
  reason: EventReasonOf<C>,
  message: string,
): Extract<Action, { kind: 'event' }> {
  return { kind: 'event', type: catalogue.events[reason].type, reason, message };
}

/**
 * The three KEP-1623 conditions for one summary, with Flux's polarity: Ready is positive, Reconciling and
 * Stalled are present only while abnormal-true, so `kubectl wait --for=condition=Ready` works as expected.
 */
export function readinessConditions(
  previous: readonly Condition[] | undefined,
  readiness: Readiness,
  generation: number | undefined,
  now: Date,
): Condition[] {
  const desired: [string, Condition['status']][] =
    readiness.state === 'ready'
      ? [[ConditionType.Ready, 'True']]
      : readiness.state === 'progressing'
        ? [
            [ConditionType.Ready, 'Unknown'],
            [ConditionType.Reconciling, 'True'],
          ]
        : [
            [ConditionType.Ready, 'False'],
            [ConditionType.Stalled, 'True'],
          ];
  const types = desired.map(([type]) => type);
  // Abnormal-true conditions that no longer hold are removed rather than set to False.
  const kept = (previous ?? []).filter(
    (c) => types.includes(c.type) || (c.type !== ConditionType.Reconciling && c.type !== ConditionType.Stalled),
  );
  return desired.reduce(
    (list, [type, status]) =>
      setCondition(
        list,
        { type, status, reason: readiness.reason, message: readiness.message, observedGeneration: generation },
        now,
      ),
    kept,
  );
}
