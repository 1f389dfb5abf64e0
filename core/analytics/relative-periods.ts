/**
 * DHIS2's relative periods, as its analytics API takes them in the `pe` dimension, resolved against a day: `LAST_n`
 * counts the n complete periods before the current one (DHIS2's rule), `THIS_*` and `TODAY` the current one.
 */
import type { ExportPeriodType } from '../exports/periods.ts';
import { dhis2Period } from '../processing/results/dhis2-json.ts';

const DAY_MS = 86_400_000;

interface Relative {
  type: ExportPeriodType;
  /** Periods back from the current one: 0 is the current period. */
  from: number;
  count: number;
}

const last = (type: ExportPeriodType, count: number): Relative => ({ type, from: 1, count });
const current = (type: ExportPeriodType): Relative => ({ type, from: 0, count: 1 });

/** The relative periods DHIS2 defines for the four period types of a table. */
export const RELATIVE_PERIODS: Readonly<Record<string, Relative>> = {
  TODAY: current('daily'),
  YESTERDAY: last('daily', 1),
  LAST_3_DAYS: last('daily', 3),
  LAST_7_DAYS: last('daily', 7),
  LAST_14_DAYS: last('daily', 14),
  LAST_30_DAYS: last('daily', 30),
  LAST_60_DAYS: last('daily', 60),
  LAST_90_DAYS: last('daily', 90),
  LAST_180_DAYS: last('daily', 180),
  LAST_365_DAYS: last('daily', 365),
  THIS_WEEK: current('weekly'),
  LAST_WEEK: last('weekly', 1),
  LAST_4_WEEKS: last('weekly', 4),
  LAST_12_WEEKS: last('weekly', 12),
  LAST_52_WEEKS: last('weekly', 52),
  THIS_MONTH: current('monthly'),
  LAST_MONTH: last('monthly', 1),
  LAST_3_MONTHS: last('monthly', 3),
  LAST_6_MONTHS: last('monthly', 6),
  LAST_12_MONTHS: last('monthly', 12),
  THIS_YEAR: current('yearly'),
  LAST_YEAR: last('yearly', 1),
  LAST_5_YEARS: last('yearly', 5),
  LAST_10_YEARS: last('yearly', 10),
};

export const isRelativePeriod = (id: string) => Object.hasOwn(RELATIVE_PERIODS, id);

/** The start (ms, UTC) of the period of `type` that is `back` periods before the one holding `day`. */
function startBack(type: ExportPeriodType, day: Date, back: number): number {
  const d = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()));
  if (type === 'daily') return d.getTime() - back * DAY_MS;
  if (type === 'weekly') {
    const monday = d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS;
    return monday - back * 7 * DAY_MS;
  }
  if (type === 'monthly') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1);
  return Date.UTC(d.getUTCFullYear() - back, 0, 1);
}

/** The DHIS2 period ids a relative period names on `today`, oldest first. */
export function resolveRelativePeriod(id: string, today: Date): { type: ExportPeriodType; ids: string[] } {
  const relative = RELATIVE_PERIODS[id];
  if (!relative) throw new Error(`not a relative period: ${id}`);
  const { type, from, count } = relative;
  const ids: string[] = [];
  for (let back = from + count - 1; back >= from; back--) ids.push(dhis2Period(type, startBack(type, today, back)));
  return { type, ids };
}
