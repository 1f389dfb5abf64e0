import type { Period } from '../periods/index.ts';
import type { RasterSession } from './raster.ts';

/** Periods fetched at once: remote reads are latency-bound, so a few in flight hide the round trips. */
export const READ_AHEAD = 4;

/**
 * Yields the values of `periods` in order while up to `depth` reads are in flight. A failed read surfaces when
 * its turn comes; reads still in flight when the consumer stops are left to finish unobserved.
 */
export async function* readInOrder(
  session: RasterSession,
  periods: Period[],
  depth = READ_AHEAD,
): AsyncGenerator<Float32Array> {
  const pending: Promise<Float32Array>[] = [];
  let next = 0;
  for (let i = 0; i < periods.length; i++) {
    while (next < periods.length && next < i + depth) {
      const read = session.read(periods[next++]!);
      // Observed now so that a failure ahead of its turn is not an unhandled rejection.
      read.catch(() => undefined);
      pending.push(read);
    }
    yield await pending.shift()!;
  }
}
