import { z } from 'zod';
import { formatPeriod, lastCompletePeriod, type PeriodType } from '../periods/index.ts';

/**
 * When a provider publishes a period: the rule that bounds the newest period a sync may ask for. Each provider
 * declares its default (`RasterProvider.availability`); a DataSource's `sync.availability` overrides members.
 *   today               the current period is available now (synthetic data)
 *   monthly-after-day   a month is published, complete, after `day` of the next month (CHIRPS: 20)
 *   lag-hours           a period is available `hours` after it ended (ERA5-Land: about five days)
 *   release-year        a release covers years through its release year + `offset`; years after the current
 *                       one (projections) only when `future` is true
 *   forecast-hours      a forecast reaches `hours` ahead of now: the newest period is the one holding that instant
 */
export const availabilityRuleSchema = z.discriminatedUnion('rule', [
  z.object({ rule: z.literal('today') }),
  z.object({ rule: z.literal('monthly-after-day'), day: z.number().int().min(1).max(28) }),
  z.object({ rule: z.literal('lag-hours'), hours: z.number().int().min(0) }),
  z.object({ rule: z.literal('forecast-hours'), hours: z.number().int().min(0) }),
  z.object({
    rule: z.literal('release-year'),
    year: z.number().int().min(1900).max(9999),
    offset: z.number().int().min(-50).max(50).default(0),
    future: z.boolean().default(false),
  }),
]);

export type AvailabilityRule = z.infer<typeof availabilityRuleSchema>;

export class AvailabilityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AvailabilityError';
  }
}

/** The provider's rule with the template's overrides; throws AvailabilityError naming what is wrong. */
export function resolveAvailability(
  providerRule: Record<string, unknown>,
  templateRule: Record<string, unknown> | undefined,
): AvailabilityRule {
  const parsed = availabilityRuleSchema.safeParse({ ...providerRule, ...templateRule });
  if (!parsed.success)
    throw new AvailabilityError(
      `invalid availability rule: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'rule'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** The newest period of `type` that `rule` says is published at `now`, in the native form. */
export function latestAvailable(type: PeriodType, rule: AvailabilityRule, now: Date): string {
  switch (rule.rule) {
    case 'today':
      return formatPeriod({ type, start: now });
    case 'monthly-after-day': {
      // On day `day` or before, the previous month is still being finished: the newest complete one is two back.
      const monthsBack = now.getUTCDate() > rule.day ? 1 : 2;
      const cutoff = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsBack + 1, 1));
      return lastCompletePeriod(type, cutoff);
    }
    case 'lag-hours':
      return lastCompletePeriod(type, new Date(now.getTime() - rule.hours * 3_600_000));
    case 'forecast-hours':
      return formatPeriod({ type, start: new Date(now.getTime() + rule.hours * 3_600_000) });
    case 'release-year': {
      const covered = rule.year + rule.offset;
      const last = rule.future ? covered : Math.min(covered, now.getUTCFullYear());
      return lastCompletePeriod(type, new Date(Date.UTC(last + 1, 0, 1)));
    }
  }
}
