import { z } from 'zod';

/**
 * Status conditions after KEP-1623 (`metav1.Condition`). Every Stratus kind reports the same three
 * types, with Flux's polarity: `Ready` is positive, `Reconciling` and `Stalled` are abnormal-true.
 */
export const ConditionType = { Ready: 'Ready', Reconciling: 'Reconciling', Stalled: 'Stalled' } as const;

export const conditionSchema = z
  .object({
    type: z.string().min(1).max(316).describe('Type of condition in CamelCase, e.g. Ready.'),
    status: z.enum(['True', 'False', 'Unknown']).describe('Status of the condition: True, False or Unknown.'),
    observedGeneration: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('metadata.generation that the condition was set from.'),
    lastTransitionTime: z.string().describe('Last time the condition changed from one status to another (RFC 3339).'),
    reason: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
      .describe('Programmatic identifier of the reason for the last transition, in CamelCase.'),
    message: z.string().max(32768).describe('Human-readable message about the transition.'),
  })
  .describe('A condition of the resource, per KEP-1623.');

export type Condition = z.infer<typeof conditionSchema>;
export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/**
 * The summary a reason stands for, and so the conditions it sets: `ready` sets Ready=True; `progressing` sets
 * Ready=Unknown and Reconciling=True; `stalled` sets Ready=False and Stalled=True. Reconciling and Stalled are
 * removed while they do not hold.
 */
export type ReadinessState = 'ready' | 'progressing' | 'stalled';

export interface ReasonEntry {
  state: ReadinessState;
  /** When the object has this reason; `docs/resources.md` shows it. */
  description: string;
}

export interface EventReasonEntry {
  type: 'Normal' | 'Warning';
  description: string;
}

/**
 * A kind's catalogue (`core/resources/<kind>/conditions.ts`): every reason its conditions may carry, each with the
 * summary it stands for, and every reason of the Events its controller records. Planners name reasons from it
 * only, so the summary (the polarity) of a reason is decided here once; `docs/resources.md` is generated from it.
 */
export interface ConditionCatalogue<Reason extends string = string, EventReason extends string = string> {
  reasons: Readonly<Record<Reason, ReasonEntry>>;
  events: Readonly<Record<EventReason, EventReasonEntry>>;
}

export type ReasonOf<C extends ConditionCatalogue> = keyof C['reasons'] & string;
export type EventReasonOf<C extends ConditionCatalogue> = keyof C['events'] & string;

/**
 * Returns a new list with `input` set. `lastTransitionTime` moves only when the status changes, so a
 * reconcile that confirms the same state does not churn the object (and its watchers).
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === input.type);
  const previous = index >= 0 ? list[index] : undefined;
  const lastTransitionTime =
    previous && previous.status === input.status ? previous.lastTransitionTime : now.toISOString();
  const next: Condition = { ...input, lastTransitionTime };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}
