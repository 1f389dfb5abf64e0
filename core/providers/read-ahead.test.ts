import { describe, expect, it } from 'vitest';
import { periodRange, formatPeriod } from '../periods/index.ts';
import type { RasterSession } from './raster.ts';
import { readInOrder } from './read-ahead.ts';

const periods = periodRange('daily', '2024-01-01', '2024-01-10');

describe('readInOrder', () => {
  it('yields in period order with at most `depth` reads in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const session: RasterSession = {
      grid: { lon: new Float64Array(1), lat: new Float64Array(1), resolution: 1 },
      read: async (period) => {
        peak = Math.max(peak, ++inFlight);
        // Later periods answer sooner, so order comes from the helper, not from timing.
        await new Promise((r) => setTimeout(r, 20 - period.start.getUTCDate()));
        inFlight--;
        return Float32Array.of(period.start.getUTCDate());
      },
    };
    const seen: number[] = [];
    for await (const values of readInOrder(session, periods, 3)) seen.push(values[0]!);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(peak).toBe(3);
  });

  it('surfaces a failure at its turn, after the periods before it', async () => {
    const session: RasterSession = {
      grid: { lon: new Float64Array(1), lat: new Float64Array(1), resolution: 1 },
      read: async (period) => {
        if (formatPeriod(period) === '2024-01-03') throw new Error('upstream gone');
        return Float32Array.of(1);
      },
    };
    let count = 0;
    await expect(async () => {
      for await (const _ of readInOrder(session, periods)) count++;
    }).rejects.toThrow('upstream gone');
    expect(count).toBe(2);
  });
});
