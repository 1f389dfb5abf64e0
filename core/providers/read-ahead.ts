import type { Period } from '../periods/index.ts';
import { readAhead } from '../read-ahead.ts';
import type { RasterSession } from './raster.ts';

/** Periods fetched at once: remote reads are latency-bound, so a few in flight hide the round trips. */
export const READ_AHEAD = 4;

/** Yields the values of `periods` in order while up to `depth` reads are in flight (`readAhead`). */
export function readInOrder(
  session: RasterSession,
  periods: Period[],
  depth = READ_AHEAD,
): AsyncGenerator<Float32Array> {
  return readAhead(periods.length, (i) => session.read(periods[i]!), depth);
}
