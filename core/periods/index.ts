/**
 * Periods in their dataset-native string forms (spec 1): hourly `YYYY-MM-DDTHH`, daily `YYYY-MM-DD`,
 * ISO week `YYYY-Www`, monthly `YYYY-MM`, yearly `YYYY`. All arithmetic is in UTC.
 */
import type { z } from 'zod';
import type { periodType } from '../resources/common.ts';

export type PeriodType = z.infer<typeof periodType>;

export interface Period {
  type: PeriodType;
  /** Start of the period, UTC. */
  start: Date;
}

const FORMS: Record<PeriodType, { pattern: RegExp; example: string }> = {
  hourly: { pattern: /^(\d{4})-(\d{2})-(\d{2})T(\d{2})$/, example: '2024-01-31T06' },
  daily: { pattern: /^(\d{4})-(\d{2})-(\d{2})$/, example: '2024-01-31' },
  weekly: { pattern: /^(\d{4})-W(\d{2})$/, example: '2024-W05' },
  monthly: { pattern: /^(\d{4})-(\d{2})$/, example: '2024-01' },
  yearly: { pattern: /^(\d{4})$/, example: '2024' },
};

export class PeriodError extends Error {
  /** The bound of a requested range at fault, when the error is about one, so an API can point at its field. */
  readonly bound: 'start' | 'end' | undefined;

  constructor(message: string, bound?: 'start' | 'end') {
    super(message);
    this.name = 'PeriodError';
    this.bound = bound;
  }
}

/** Monday of ISO week 1: the week holding 4 January. */
function isoWeekOneMonday(year: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  const weekday = (new Date(jan4).getUTCDay() + 6) % 7;
  return jan4 - weekday * 86_400_000;
}

function isoWeeksIn(year: number): number {
  return Math.round((isoWeekOneMonday(year + 1) - isoWeekOneMonday(year)) / (7 * 86_400_000));
}

/** Parses `text` as a period of `type`; throws PeriodError naming the expected form. */
export function parsePeriod(type: PeriodType, text: string): Period {
  const { pattern, example } = FORMS[type];
  const m = pattern.exec(text);
  const fail = () => new PeriodError(`"${text}" is not a ${type} period; expected the form ${example}`);
  if (!m) throw fail();
  const [year, a = 1, b = 1, c = 0] = m.slice(1).map(Number) as [number, number?, number?, number?];
  if (type === 'weekly') {
    if (a < 1 || a > isoWeeksIn(year)) throw fail();
    return { type, start: new Date(isoWeekOneMonday(year) + (a - 1) * 7 * 86_400_000) };
  }
  const start = new Date(Date.UTC(year, a - 1, b, c));
  // Reject dates that Date silently rolls over (2024-02-30, hour 24).
  if (start.getUTCFullYear() !== year || start.getUTCMonth() !== a - 1 || start.getUTCDate() !== b || c > 23)
    throw fail();
  return { type, start };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export function formatPeriod(period: Period): string {
  const d = period.start;
  const [y, mo, da, h] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours()];
  switch (period.type) {
    case 'hourly':
      return `${pad(y, 4)}-${pad(mo)}-${pad(da)}T${pad(h)}`;
    case 'daily':
      return `${pad(y, 4)}-${pad(mo)}-${pad(da)}`;
    case 'monthly':
      return `${pad(y, 4)}-${pad(mo)}`;
    case 'yearly':
      return pad(y, 4);
    case 'weekly': {
      // Any instant of the week names it (lastCompletePeriod passes "now"): count from the week's Monday.
      const monday = Date.UTC(y, mo - 1, da - ((d.getUTCDay() + 6) % 7));
      // The ISO year is the year of the week's Thursday.
      const isoYear = new Date(monday + 3 * 86_400_000).getUTCFullYear();
      const week = Math.floor((monday - isoWeekOneMonday(isoYear)) / (7 * 86_400_000)) + 1;
      return `${pad(isoYear, 4)}-W${pad(week)}`;
    }
  }
}

/** The period after `period`. */
export function nextPeriod(period: Period): Period {
  const d = period.start;
  const [y, mo, da, h] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()];
  const start = {
    hourly: () => new Date(Date.UTC(y, mo, da, h + 1)),
    daily: () => new Date(Date.UTC(y, mo, da + 1)),
    weekly: () => new Date(Date.UTC(y, mo, da + 7)),
    monthly: () => new Date(Date.UTC(y, mo + 1, 1)),
    yearly: () => new Date(Date.UTC(y + 1, 0, 1)),
  }[period.type]();
  return { type: period.type, start };
}

/** `parsePeriod` of one bound of a range, its errors naming the bound. */
function parseBound(type: PeriodType, text: string, bound: 'start' | 'end'): Period {
  try {
    return parsePeriod(type, text);
  } catch (err) {
    if (err instanceof PeriodError) throw new PeriodError(err.message, bound);
    throw err;
  }
}

/** Every period from `start` to `end`, both included; throws when `end` precedes `start` or the range is huge. */
export function periodRange(type: PeriodType, start: string, end: string, limit = 100_000): Period[] {
  const first = parseBound(type, start, 'start');
  const last = parseBound(type, end, 'end');
  if (last.start < first.start) throw new PeriodError(`end ${end} is before start ${start}`, 'end');
  const periods: Period[] = [];
  for (let p = first; p.start <= last.start; p = nextPeriod(p)) {
    if (periods.length === limit)
      throw new PeriodError(`the range ${start}..${end} has more than ${limit} periods`, 'end');
    periods.push(p);
  }
  return periods;
}

/** The CF time unit that counts periods of `type` exactly (months and years are stored by their first day). */
export function cfTimeUnit(type: PeriodType): { unit: 'hours' | 'days'; epoch: string; step: number } {
  return type === 'hourly'
    ? { unit: 'hours', epoch: '1970-01-01T00:00:00', step: 3_600_000 }
    : { unit: 'days', epoch: '1970-01-01', step: 86_400_000 };
}

/** The last complete period before `now`: the default end of a run that names none. */
export function lastCompletePeriod(type: PeriodType, now: Date): string {
  const current = parsePeriod(type, formatPeriod({ type, start: now }));
  return formatPeriod({ type, start: new Date(current.start.getTime() - 1) });
}

/**
 * The period range a run asks for: `start` is required, `end` defaults to the last complete period. Checked
 * the same way by the API (400 before anything is queued), the planner and the worker.
 */
export function requestedRange(
  type: PeriodType,
  start: string | undefined,
  end: string | undefined,
  now: Date,
): { start: string; end: string; periods: Period[] } {
  if (!start) throw new PeriodError('start is required for this data source', 'start');
  const resolvedEnd = end ?? lastCompletePeriod(type, now);
  return { start, end: resolvedEnd, periods: periodRange(type, start, resolvedEnd) };
}
