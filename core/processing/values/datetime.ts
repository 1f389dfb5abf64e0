/**
 * Dates and times as openEO passes them: RFC 3339 date-times (`2020-01-01T00:00:00Z`, `...+02:00`, fractional
 * seconds optional), dates (`2020-01-01`, UTC midnight) and times of day (`06:00:00`, UTC). Parsed into parts
 * so that calendar arithmetic keeps the offset and the kind of the input, and into instants (ms since the epoch,
 * UTC) for comparisons.
 */

export interface DateTimeParts {
  kind: 'date-time' | 'date';
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** Offset of the local time from UTC in minutes (`Z`: 0). */
  offsetMinutes: number;
}

const DATE_TIME =
  /^(-?\d{4,})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Parts of a date or date-time string, or undefined when it is neither (or names no real day or time). */
export function parseDateTime(text: string): DateTimeParts | undefined {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  // A year past what an instant can hold (about ±275,000) has no length of month: refused, not computed as NaN.
  const monthLength = daysInMonth(year, month);
  if (month < 1 || month > 12 || day < 1 || !(day <= monthLength)) return undefined;
  if (h === undefined) {
    return { kind: 'date', year, month, day, hour: 0, minute: 0, second: 0, millisecond: 0, offsetMinutes: 0 };
  }
  const hour = Number(h);
  const minute = Number(mi);
  // A leap second (60) is accepted on input and folded into the next minute by the instant arithmetic.
  const second = Number(s);
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const millisecond = frac ? Math.floor(Number(`0.${frac}`) * 1000 + 1e-6) : 0;
  const offsetMinutes = z || !sign ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  return { kind: 'date-time', year, month, day, hour, minute, second, millisecond, offsetMinutes };
}

/** Milliseconds since the epoch (UTC) of parsed parts. */
export function instantOf(parts: DateTimeParts): number {
  const local = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return local + parts.millisecond - parts.offsetMinutes * 60_000;
}

/** Milliseconds since the epoch of a date or date-time string, or undefined. */
export function parseInstant(text: string): number | undefined {
  const parts = parseDateTime(text);
  return parts ? instantOf(parts) : undefined;
}

/** Seconds since midnight of a `HH:MM:SS` time of day, or undefined. */
export function parseTimeOfDay(text: string): number | undefined {
  const m = TIME.exec(text);
  if (!m) return undefined;
  const [h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (h > 23 || mi > 59 || s > 59) return undefined;
  return h * 3600 + mi * 60 + s;
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

function yearText(year: number): string {
  return year < 0 ? `-${pad(year, 4)}` : pad(year, 4);
}

/** Renders parts back in the input's form: a date, or a date-time in its own offset (`Z` for UTC). */
export function formatDateTime(parts: DateTimeParts): string {
  const date = `${yearText(parts.year)}-${pad(parts.month)}-${pad(parts.day)}`;
  if (parts.kind === 'date') return date;
  const ms = parts.millisecond ? `.${pad(parts.millisecond, 3)}` : '';
  const offset =
    parts.offsetMinutes === 0
      ? 'Z'
      : `${parts.offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(parts.offsetMinutes) / 60))}:${pad(Math.abs(parts.offsetMinutes) % 60)}`;
  return `${date}T${pad(parts.hour)}:${pad(parts.minute)}:${pad(parts.second)}${ms}${offset}`;
}

/** The parts of an instant seen in a given offset, keeping `kind`. */
export function partsAt(instant: number, offsetMinutes: number, kind: DateTimeParts['kind']): DateTimeParts {
  const d = new Date(instant + offsetMinutes * 60_000);
  return {
    kind,
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: kind === 'date' ? 0 : d.getUTCHours(),
    minute: kind === 'date' ? 0 : d.getUTCMinutes(),
    second: kind === 'date' ? 0 : d.getUTCSeconds(),
    millisecond: kind === 'date' ? 0 : d.getUTCMilliseconds(),
    offsetMinutes,
  };
}

/** An instant as an RFC 3339 UTC string (`2020-01-01T00:00:00Z`, milliseconds only when not zero). */
export function formatInstant(instant: number): string {
  return formatDateTime(partsAt(instant, 0, 'date-time'));
}

/** Adds calendar months, clamping the day to the target month's length (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(parts: DateTimeParts, months: number): DateTimeParts {
  const index = parts.year * 12 + (parts.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return { ...parts, year, month, day: Math.min(parts.day, daysInMonth(year, month)) };
}

export { daysInMonth };
