import { ConditionType, setCondition, type Condition } from '../../core/resources/conditions.ts';

export type Readiness =
  | { state: 'ready'; reason: string; message: string }
  | { state: 'progressing'; reason: string; message: string }
  | { state: 'stalled'; reason: string; message: string };

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
