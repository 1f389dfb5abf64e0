import { RunError } from '../runs/errors.ts';

const UNIT_MS: Record<string, number> = {
  seconds: 1_000,
  second: 1_000,
  s: 1_000,
  minutes: 60_000,
  minute: 60_000,
  hours: 3_600_000,
  hour: 3_600_000,
  h: 3_600_000,
  days: 86_400_000,
  day: 86_400_000,
};

/**
 * Decodes a CF time axis (`<unit> since <epoch>`, proleptic Gregorian or standard calendar, UTC) into epoch
 * milliseconds.
 */
export function cfTimesToMs(values: ArrayLike<number>, units: unknown, calendar: unknown = 'standard'): number[] {
  const m =
    typeof units === 'string'
      ? /^\s*(\w+)\s+since\s+(\d{4}-\d{1,2}-\d{1,2})(?:[ T](\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(Z|UTC|[+-]00:?00)?\s*$/i.exec(
          units,
        )
      : null;
  const step = m ? UNIT_MS[m[1]!.toLowerCase()] : undefined;
  if (!m || !step)
    throw new RunError('UnsupportedLayout', `time units ${JSON.stringify(units)} are not CF "<unit> since <date>"`);
  if (!['standard', 'gregorian', 'proleptic_gregorian'].includes(String(calendar).toLowerCase()))
    throw new RunError('UnsupportedLayout', `calendar ${String(calendar)} is not supported`);
  const [year, month, day] = m[2]!.split('-').map(Number) as [number, number, number];
  const [hour = 0, minute = 0, second = 0] = (m[3] ?? '0:00').split(':').map(Number);
  const epoch = Date.UTC(year, month - 1, day, hour, minute, second);
  return Array.from(values, (v) => epoch + Math.round(v * step));
}
