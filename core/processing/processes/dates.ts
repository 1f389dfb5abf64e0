/**
 * Date and time processes (openEO category `date & time`), over RFC 3339 strings. Calendar units (day, week,
 * month, year) move the local date in the input's own offset and keep its time of day; clock units move the
 * instant. A date input gives a date output.
 */
import { invalidArgument } from '../errors.ts';
import type { Args, ProcessDefinition } from '../process.ts';
import {
  addMonths,
  daysInMonth,
  formatDateTime,
  instantOf,
  parseDateTime,
  parseTimeOfDay,
  partsAt,
  type DateTimeParts,
} from '../values/datetime.ts';

const CLOCK_MS: Record<string, number> = { millisecond: 1, second: 1_000, minute: 60_000, hour: 3_600_000 };

function parsed(value: unknown, process: string, parameter: string): DateTimeParts {
  const parts = typeof value === 'string' ? parseDateTime(value) : undefined;
  if (!parts) throw invalidArgument(process, parameter, `not an RFC 3339 date or date-time: ${JSON.stringify(value)}`);
  return parts;
}

/** RFC 3339 writes a year in four digits: a result outside them cannot be returned as a date or date-time. */
const LAST_YEAR = 9999;

function shifted(parts: DateTimeParts, value: number, unit: string): DateTimeParts {
  const result = shiftDate(parts, value, unit);
  // Written so that NaN fails too: a shift past the instants a Date holds leaves the year NaN.
  if (!(result.year >= 0 && result.year <= LAST_YEAR)) {
    throw invalidArgument(
      'date_shift',
      'value',
      `${formatDateTime(parts)} shifted by ${value} ${unit} lies outside the years 0000 to ${LAST_YEAR} that RFC 3339 writes`,
    );
  }
  return result;
}

export function shiftDate(parts: DateTimeParts, value: number, unit: string): DateTimeParts {
  if (unit in CLOCK_MS) {
    const instant = instantOf(parts) + value * CLOCK_MS[unit]!;
    return partsAt(instant, parts.offsetMinutes, parts.kind);
  }
  if (unit === 'month' || unit === 'year') return addMonths(parts, unit === 'year' ? value * 12 : value);
  const days = unit === 'week' ? value * 7 : value;
  const date = new Date(Date.UTC(parts.year, parts.month - 1, parts.day + days));
  return { ...parts, year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** The difference `date2 - date1` in months, whole calendar months plus the fraction of the last one. */
function monthsBetween(a: DateTimeParts, b: DateTimeParts): number {
  const whole = (b.year - a.year) * 12 + (b.month - a.month);
  const anchor = addMonths(a, whole);
  const rest = instantOf(b) - instantOf(anchor);
  const monthMs = daysInMonth(anchor.year, anchor.month) * 86_400_000;
  return whole + rest / monthMs;
}

/** A comparable number for `date_between`: an instant, or seconds of the day for times of day. */
function comparable(value: unknown): { kind: 'instant' | 'time'; at: number } | undefined {
  if (typeof value !== 'string') return undefined;
  const time = parseTimeOfDay(value);
  if (time !== undefined) return { kind: 'time', at: time };
  const parts = parseDateTime(value);
  return parts ? { kind: 'instant', at: instantOf(parts) } : undefined;
}

export const dateProcesses: ProcessDefinition[] = [
  {
    id: 'date_shift',
    run: ({ date, value, unit }: Args) =>
      formatDateTime(shifted(parsed(date, 'date_shift', 'date'), value as number, unit as string)),
  },
  {
    id: 'date_difference',
    run: ({ date1, date2, unit }: Args) => {
      const a = parsed(date1, 'date_difference', 'date1');
      const b = parsed(date2, 'date_difference', 'date2');
      const ms = instantOf(b) - instantOf(a);
      switch (unit) {
        case 'month':
          return monthsBetween(a, b);
        case 'year':
          return monthsBetween(a, b) / 12;
        case 'day':
          return ms / 86_400_000;
        case 'week':
          return ms / (7 * 86_400_000);
        default:
          return ms / CLOCK_MS[unit as string]!;
      }
    },
  },
  {
    id: 'date_between',
    run: ({ x, min, max, exclude_max }: Args) => {
      const [v, lo, hi] = [comparable(x), comparable(min), comparable(max)];
      if (!v || !lo || !hi || v.kind !== lo.kind || v.kind !== hi.kind) return false;
      return v.at >= lo.at && (exclude_max ? v.at < hi.at : v.at <= hi.at);
    },
  },
];
