/**
 * ETCCDI's rule for missing data (the one RClimDex and climdex apply): a month with more than 3 missing days, and
 * a year with more than 15 or with a month that fails, have no value (NaN). A period's value is otherwise computed
 * over its days with data. A missing day is one the series lacks or where an input the index reads is NaN.
 */
import type { Calendar } from './calendar.ts';

export const MAX_MISSING_DAYS = { month: 3, year: 15 } as const;

/** Which days are missing: per day and cell (`missing`), and per day, whether any cell's is (`missingDays`). */
export interface MissingDays {
  readonly missing: Uint8Array;
  readonly missingDays: Uint8Array;
}

/**
 * Which (period, cell) have too many missing days, as 1s in a `count` × `cells` array. `ofDay`: each day's period
 * (-1 for none); `annual`: the periods are years (of twelve months each, calendar or July to June).
 */
export function failedPeriods(
  calendar: Calendar,
  { missing, missingDays }: MissingDays,
  cells: number,
  ofDay: Int32Array,
  count: number,
  annual: boolean,
): Uint8Array {
  const perPeriod = new Int32Array(count * cells);
  const perMonth = new Int32Array(cells);
  const failed = new Uint8Array(count * cells);
  // Days without a missing value in any cell are skipped: most series have few.
  let monthMissing = 0;
  for (let d = 0; d < calendar.days; d++) {
    const p = ofDay[d]!;
    if (p >= 0 && missingDays[d]) {
      monthMissing = 1;
      const row = d * cells;
      for (let c = 0; c < cells; c++) {
        const m = missing[row + c]!;
        perPeriod[p * cells + c]! += m;
        perMonth[c]! += m;
      }
    }
    // At the end of each month: a month with too many missing days fails its period.
    if ((d + 1 === calendar.days || calendar.month[d + 1] !== calendar.month[d]) && monthMissing) {
      if (p >= 0) for (let c = 0; c < cells; c++) if (perMonth[c]! > MAX_MISSING_DAYS.month) failed[p * cells + c] = 1;
      perMonth.fill(0);
      monthMissing = 0;
    }
  }
  if (annual) for (let i = 0; i < failed.length; i++) if (perPeriod[i]! > MAX_MISSING_DAYS.year) failed[i] = 1;
  return failed;
}

/** Sets NaN where a period failed. */
export function maskFailed(values: Float64Array, failed: Uint8Array): Float64Array {
  for (let i = 0; i < values.length; i++) if (failed[i]) values[i] = NaN;
  return values;
}
