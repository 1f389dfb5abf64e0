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
  const tally = new MissingTally(calendar, cells, ofDay, count, annual);
  // Days without a missing value in any cell are passed without their row: most series have few.
  for (let d = 0; d < calendar.days; d++) tally.day(d, missingDays[d] ? missing : undefined, d * cells);
  return tally.failed();
}

/** The missing-day rule over days given in calendar order, each with its missing values per cell. */
export class MissingTally {
  private readonly perPeriod: Int32Array;
  private readonly perMonth: Int32Array;
  private readonly failures: Uint8Array;
  private monthMissing = 0;
  private readonly calendar: Calendar;
  private readonly cells: number;
  private readonly ofDay: Int32Array;
  private readonly annual: boolean;

  constructor(calendar: Calendar, cells: number, ofDay: Int32Array, count: number, annual: boolean) {
    this.calendar = calendar;
    this.cells = cells;
    this.ofDay = ofDay;
    this.annual = annual;
    this.perPeriod = new Int32Array(count * cells);
    this.perMonth = new Int32Array(cells);
    this.failures = new Uint8Array(count * cells);
  }

  /** Day `d`, missing in the cells where `missing[from + cell]` is 1; `missing` absent: in none. */
  day(d: number, missing: Uint8Array | undefined, from: number) {
    const { calendar, cells, perPeriod, perMonth } = this;
    const p = this.ofDay[d]!;
    if (p >= 0 && missing) {
      this.monthMissing = 1;
      for (let c = 0; c < cells; c++) {
        const m = missing[from + c]!;
        perPeriod[p * cells + c]! += m;
        perMonth[c]! += m;
      }
    }
    // At the end of each month: a month with too many missing days fails its period.
    if ((d + 1 === calendar.days || calendar.month[d + 1] !== calendar.month[d]) && this.monthMissing) {
      if (p >= 0)
        for (let c = 0; c < cells; c++) if (perMonth[c]! > MAX_MISSING_DAYS.month) this.failures[p * cells + c] = 1;
      perMonth.fill(0);
      this.monthMissing = 0;
    }
  }

  /** After the calendar's last day: the (period, cell) that failed, 1s in a `count` × `cells` array. */
  failed(): Uint8Array {
    const { failures, perPeriod } = this;
    if (this.annual)
      for (let i = 0; i < failures.length; i++) if (perPeriod[i]! > MAX_MISSING_DAYS.year) failures[i] = 1;
    return failures;
  }
}

/** Sets NaN where a period failed. */
export function maskFailed(values: Float64Array, failed: Uint8Array): Float64Array {
  for (let i = 0; i < values.length; i++) if (failed[i]) values[i] = NaN;
  return values;
}
