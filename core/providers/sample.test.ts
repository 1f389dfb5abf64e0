import { describe, expect, it } from 'vitest';
import { parsePeriod } from '../periods/index.ts';
import { gridCovering } from '../stores/raster-grid.ts';
import { sampleProvider } from './sample.ts';

const bbox: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];
const open = (parameters: Record<string, unknown> = {}) =>
  sampleProvider.open({ parameters, bbox, signal: new AbortController().signal });

describe('gridCovering', () => {
  it('covers the extent with cells aligned on the resolution, north-up', () => {
    const grid = gridCovering(bbox, 0.05);
    expect(grid.lon.length).toBe(66);
    expect(grid.lat.length).toBe(62);
    expect(grid.lon[0]).toBeCloseTo(-13.475, 9);
    expect(grid.lat[0]).toBeCloseTo(9.975, 9);
    expect(grid.lat[61]).toBeCloseTo(6.925, 9);
  });

  it('snaps outwards when the extent is not a multiple of the resolution', () => {
    const grid = gridCovering([0.01, 0.01, 0.19, 0.09], 0.1);
    expect([...grid.lon]).toEqual([0.05, 0.15]);
    expect([...grid.lat]).toEqual([0.05]);
  });
});

describe('sample provider', () => {
  it('is deterministic for the same seed and period, and varies with either', async () => {
    const day = parsePeriod('daily', '2024-03-01');
    const a = await (await open({ seed: 7 })).read(day);
    const b = await (await open({ seed: 7 })).read(day);
    const c = await (await open({ seed: 8 })).read(day);
    const d = await (await open({ seed: 7 })).read(parsePeriod('daily', '2024-03-02'));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a).not.toEqual(d);
    expect(a.length).toBe(66 * 62);
    expect(Math.min(...a)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...a)).toBeLessThan(100);
  });

  it('refuses parameters that are not numbers', async () => {
    await expect(open({ seed: 'x' })).rejects.toMatchObject({ code: 'InvalidParameters' });
    await expect(open({ resolution: 0 })).rejects.toMatchObject({ code: 'InvalidParameters' });
  });
});
