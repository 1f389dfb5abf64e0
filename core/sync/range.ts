import { formatPeriod, PeriodError, requestedRange, type PeriodType } from '../periods/index.ts';
import type { DataSource } from '../resources/data-source/schema.ts';
import { sourceAvailability } from './availability.ts';

/**
 * The periods an ingestion asks for, with the defaults of its source (spec 1): a historical source needs a
 * start and ends by default at the last complete period; a forecast (`temporalDirection: future`) starts by
 * default at the current period ("from now") and ends at its horizon, the newest period its provider offers.
 * Throws PeriodError, which the API answers with 400 before anything is queued.
 */
export function runRange(
  source: DataSource,
  type: PeriodType,
  start: string | undefined,
  end: string | undefined,
  now: Date,
) {
  if (source.spec.temporalDirection !== 'future') return requestedRange(type, start, end, now);
  let horizon = end;
  if (horizon === undefined) {
    const available = sourceAvailability(source, type, now);
    if (!available.ok) throw new PeriodError(`no default end for this forecast: ${available.message}`, 'end');
    horizon = available.latest;
  }
  return requestedRange(type, start ?? formatPeriod({ type, start: now }), horizon, now);
}
