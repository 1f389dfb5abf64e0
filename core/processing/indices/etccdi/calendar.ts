/**
 * The daily calendar an ETCCDI index is computed on: every day from 1 January of the series' first year to
 * 31 December of its last, whether the series has it or not (a day the series lacks is a missing day, so a short
 * year is judged by the same missing-day rule as a year with gaps), and the periods the index reports by.
 */
import { periodLabel, periodOrdinal } from '../../processes/cube/periods.ts';

export const DAY_MS = 86_400_000;

export type Frequency = 'month' | 'year';

export interface Calendar {
  /** Days since 1970-01-01 of the calendar's first day (a 1 January). */
  readonly firstDay: number;
  readonly days: number;
  readonly year: Int32Array;
  /** 1 to 12. */
  readonly month: Int32Array;
  /** Day of the month, 1 to 31. */
  readonly dayOfMonth: Int32Array;
}

/** The calendar of whole years around days `firstDay` to `lastDay` (days since the epoch). */
export function calendarOf(firstDay: number, lastDay: number): Calendar {
  const y0 = new Date(firstDay * DAY_MS).getUTCFullYear();
  const y1 = new Date(lastDay * DAY_MS).getUTCFullYear();
  const start = Date.UTC(y0, 0, 1) / DAY_MS;
  const days = Date.UTC(y1 + 1, 0, 1) / DAY_MS - start;
  const year = new Int32Array(days);
  const month = new Int32Array(days);
  const dayOfMonth = new Int32Array(days);
  for (let d = 0; d < days; d++) {
    const date = new Date((start + d) * DAY_MS);
    year[d] = date.getUTCFullYear();
    month[d] = date.getUTCMonth() + 1;
    dayOfMonth[d] = date.getUTCDate();
  }
  return { firstDay: start, days, year, month, dayOfMonth };
}

/** The periods an index reports: each day's period (-1 for none), the period count and their labels. */
export interface Periods {
  readonly ofDay: Int32Array;
  readonly count: number;
  readonly labels: string[];
}

/**
 * Calendar months or years from the period of the series' first day to that of its last (`seriesFirst`,
 * `seriesLast`: days since the epoch); days of the calendar outside them belong to none.
 */
export function periodsOf(calendar: Calendar, frequency: Frequency, seriesFirst: number, seriesLast: number): Periods {
  const first = periodOrdinal(frequency, seriesFirst * DAY_MS);
  const last = periodOrdinal(frequency, seriesLast * DAY_MS);
  const ofDay = new Int32Array(calendar.days);
  for (let d = 0; d < calendar.days; d++) {
    const ordinal = frequency === 'year' ? calendar.year[d]! : calendar.year[d]! * 12 + calendar.month[d]! - 1;
    ofDay[d] = ordinal >= first && ordinal <= last ? ordinal - first : -1;
  }
  const count = last - first + 1;
  return { ofDay, count, labels: Array.from({ length: count }, (_, k) => periodLabel(frequency, first + k)) };
}

/**
 * The key of a day in a 365-day year (0 to 364), which percentile thresholds are indexed by: 29 February shares
 * 28 February's.
 */
export function dayKey(calendar: Calendar, d: number): number {
  const month = calendar.month[d]!;
  const day = Math.min(calendar.dayOfMonth[d]!, month === 2 ? 28 : 31);
  return (Date.UTC(2001, month - 1, day) - Date.UTC(2001, 0, 1)) / DAY_MS;
}
