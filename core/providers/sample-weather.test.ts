import { describe, expect, it } from 'vitest';
import { parsePeriod } from '../periods/index.ts';
import { sampleProvider } from './sample.ts';
import { sampleWeather } from './sample-weather.ts';

const bbox: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];
const open = (parameters: Record<string, unknown>) =>
  sampleProvider.open({ parameters, bbox, signal: new AbortController().signal });

const FIRST_DAY = Date.UTC(2022, 0, 1) / 86_400_000;
const DAYS = 1096;

/** Three years of one cell's weather, day by day. */
function series(lon: number, lat: number) {
  const weather = sampleWeather(42);
  return Array.from({ length: DAYS }, (_, d) => weather({ lon, lat, j: 5, i: 7, day: FIRST_DAY + d }));
}

/** The longest run of consecutive days that pass `test`. */
function longestRun<T>(values: T[], test: (v: T) => boolean): number {
  let longest = 0;
  let run = 0;
  for (const v of values) {
    run = test(v) ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

describe('sample weather', () => {
  // The coast of the sample extent (Freetown) and its drier, hotter north-east.
  describe.each([
    ['coast', -13.15, 8.45, [2200, 4000]],
    ['inland', -10.55, 9.55, [1300, 2800]],
  ])('at a %s cell over 2022-2024', (_where, lon, lat, annualRange) => {
    const days = series(lon, lat);
    const rain = days.map((d) => d.precipitation);
    const wet = rain.map((r) => r >= 1);

    it('has no negative precipitation and a monsoon climate’s yearly total and share of dry days', () => {
      expect(Math.min(...rain)).toBeGreaterThanOrEqual(0);
      const annual = rain.reduce((a, b) => a + b, 0) / 3;
      expect(annual).toBeGreaterThan(annualRange[0]!);
      expect(annual).toBeLessThan(annualRange[1]!);
      const dryShare = wet.filter((w) => !w).length / DAYS;
      expect(dryShare).toBeGreaterThan(0.55);
      expect(dryShare).toBeLessThan(0.85);
    });

    it('has heavy-rain days, long dry spells in the dry season and wet spells in the wet season', () => {
      const perYear = (threshold: number) => rain.filter((r) => r >= threshold).length / 3;
      expect(perYear(20)).toBeGreaterThan(10);
      expect(perYear(20)).toBeLessThan(perYear(10));
      expect(longestRun(wet, (w) => !w)).toBeGreaterThan(30);
      expect(longestRun(wet, (w) => w)).toBeGreaterThanOrEqual(7);
    });

    it('keeps wet days together: in July to September a wet day follows a wet day more often than a dry one', () => {
      // Within one season, so that the seasonal cycle alone cannot make the difference.
      const month = (d: number) => new Date((FIRST_DAY + d) * 86_400_000).getUTCMonth();
      const after = { wet: { days: 0, wet: 0 }, dry: { days: 0, wet: 0 } };
      for (let d = 1; d < DAYS; d++) {
        if (month(d) < 6 || month(d) > 8) continue;
        const before = wet[d - 1] ? after.wet : after.dry;
        before.days++;
        if (wet[d]) before.wet++;
      }
      expect(after.wet.wet / after.wet.days).toBeGreaterThan(after.dry.wet / after.dry.days + 0.2);
    });

    it('has tmin below tmax every day, within the range of the region, and cooler rainy days', () => {
      for (const d of days) expect(d.tmin).toBeLessThan(d.tmax);
      expect(Math.min(...days.map((d) => d.tmin))).toBeGreaterThan(12);
      expect(Math.max(...days.map((d) => d.tmax))).toBeLessThan(42);
      const meanTmax = (filter: (i: number) => boolean) => {
        const picked = days.filter((_, i) => filter(i)).map((d) => d.tmax);
        return picked.reduce((a, b) => a + b, 0) / picked.length;
      };
      expect(meanTmax((i) => wet[i]!)).toBeLessThan(meanTmax((i) => !wet[i]) - 1);
    });
  });

  it('wets the wet season: July to September holds most of the year’s rain', () => {
    const days = series(-12, 8.5);
    const month = (d: number) => new Date((FIRST_DAY + d) * 86_400_000).getUTCMonth();
    const total = days.reduce((a, b) => a + b.precipitation, 0);
    const wetSeason = days.filter((_, d) => month(d) >= 6 && month(d) <= 8).reduce((a, b) => a + b.precipitation, 0);
    expect(wetSeason / total).toBeGreaterThan(0.5);
  });
});

describe('sample provider weather variables', () => {
  it('reads the same values for a day whatever was read before, run after run', async () => {
    const day = parsePeriod('daily', '2023-08-14');
    const first = await (await open({ variable: 'precipitation', resolution: 0.1 })).read(day);
    const other = await open({ variable: 'precipitation', resolution: 0.1 });
    await other.read(parsePeriod('daily', '2022-02-01'));
    expect(await other.read(day)).toEqual(first);
    expect(first.some((v) => v > 0)).toBe(true);
  });

  it('gives tmin below tmax in every cell for sources of the same seed and resolution', async () => {
    for (const date of ['2022-01-15', '2023-04-02', '2024-08-20']) {
      const day = parsePeriod('daily', date);
      const tmin = await (await open({ variable: 'tmin', resolution: 0.1 })).read(day);
      const tmax = await (await open({ variable: 'tmax', resolution: 0.1 })).read(day);
      expect(tmin.length).toBe(33 * 31);
      tmin.forEach((low, k) => expect(low, `${date} cell ${k}`).toBeLessThan(tmax[k]!));
    }
  });

  it('refuses an unknown variable with InvalidParameters', async () => {
    await expect(open({ variable: 'humidity' })).rejects.toMatchObject({
      code: 'InvalidParameters',
      message: expect.stringContaining('variable must be one of value, precipitation, tmin, tmax'),
    });
    await expect(open({ variable: 3 })).rejects.toMatchObject({ code: 'InvalidParameters' });
  });
});
