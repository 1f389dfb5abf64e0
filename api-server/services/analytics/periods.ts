/**
 * The `pe` items of an analytics query: DHIS2 period ids (`20240105`, `2024W5`, `202401`, `2024`) and DHIS2's
 * relative periods, resolved against a clock so that tests can fix "today".
 */
import { formatPeriod, parsePeriod, type Period } from '../../../core/periods/index.ts';
import { dhis2Id, parseDhis2Period } from '../../../core/periods/dhis2.ts';
import type { ExportPeriodType } from '../../../core/resources/export/schema.ts';

interface RelativePeriod {
  type: ExportPeriodType;
  /** Periods back from the current one to the last period included: 0 for THIS_*, 1 for LAST_*. */
  back: number;
  count: number;
}

/** As DHIS2 defines them: `LAST_n_*` are the n whole periods before the current one, never the current one. */
export const relativePeriods: Readonly<Record<string, RelativePeriod>> = {
  TODAY: { type: 'daily', back: 0, count: 1 },
  YESTERDAY: { type: 'daily', back: 1, count: 1 },
  LAST_3_DAYS: { type: 'daily', back: 1, count: 3 },
  LAST_7_DAYS: { type: 'daily', back: 1, count: 7 },
  LAST_14_DAYS: { type: 'daily', back: 1, count: 14 },
  LAST_30_DAYS: { type: 'daily', back: 1, count: 30 },
  LAST_60_DAYS: { type: 'daily', back: 1, count: 60 },
  LAST_90_DAYS: { type: 'daily', back: 1, count: 90 },
  LAST_180_DAYS: { type: 'daily', back: 1, count: 180 },
  THIS_WEEK: { type: 'weekly', back: 0, count: 1 },
  LAST_WEEK: { type: 'weekly', back: 1, count: 1 },
  LAST_4_WEEKS: { type: 'weekly', back: 1, count: 4 },
  LAST_12_WEEKS: { type: 'weekly', back: 1, count: 12 },
  LAST_52_WEEKS: { type: 'weekly', back: 1, count: 52 },
  THIS_MONTH: { type: 'monthly', back: 0, count: 1 },
  LAST_MONTH: { type: 'monthly', back: 1, count: 1 },
  LAST_3_MONTHS: { type: 'monthly', back: 1, count: 3 },
  LAST_6_MONTHS: { type: 'monthly', back: 1, count: 6 },
  LAST_12_MONTHS: { type: 'monthly', back: 1, count: 12 },
  THIS_YEAR: { type: 'yearly', back: 0, count: 1 },
  LAST_YEAR: { type: 'yearly', back: 1, count: 1 },
  LAST_5_YEARS: { type: 'yearly', back: 1, count: 5 },
  LAST_10_YEARS: { type: 'yearly', back: 1, count: 10 },
};

/** The period `steps` periods after `period` (before it when negative). */
function shifted(period: Period, steps: number): Period {
  const d = period.start;
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  const start = {
    daily: () => Date.UTC(y, m, day + steps),
    weekly: () => Date.UTC(y, m, day + 7 * steps),
    monthly: () => Date.UTC(y, m + steps, 1),
    yearly: () => Date.UTC(y + steps, 0, 1),
  }[period.type as ExportPeriodType]();
  return { type: period.type, start: new Date(start) };
}

/** The DHIS2 ids of a relative period on the day `now` falls in, oldest first. */
export function relativePeriodIds({ type, back, count }: RelativePeriod, now: Date): string[] {
  const current = parsePeriod(type, formatPeriod({ type, start: now }));
  const last = shifted(current, -back);
  return Array.from({ length: count }, (_, i) => dhis2Id(shifted(last, i - count + 1)));
}

export class UnknownPeriodError extends Error {
  constructor(item: string) {
    super(`pe ${item} is neither a DHIS2 period id (20240105, 2024W5, 202401, 2024) nor a relative period`);
    this.name = 'UnknownPeriodError';
  }
}

/** Whether `item` is a DHIS2 period id as the tables write it (`2024W5`, not `2024W05`). */
function isPeriodId(item: string): boolean {
  const period = parseDhis2Period(item);
  return period !== undefined && dhis2Id(period) === item;
}

/** The period ids `items` name, in the order given and without repeats; throws UnknownPeriodError on the first bad one. */
export function resolvePeriods(items: readonly string[], now: Date): string[] {
  const ids = new Set<string>();
  for (const item of items) {
    const relative = Object.hasOwn(relativePeriods, item) ? relativePeriods[item] : undefined;
    if (relative) for (const id of relativePeriodIds(relative, now)) ids.add(id);
    else if (isPeriodId(item)) ids.add(item);
    else throw new UnknownPeriodError(item);
  }
  return [...ids];
}
