import { describe, expect, it } from 'vitest';
import { callback, cubeOf, run, spatial, temporal, valuesOf } from '../../../../test/support/cubes.ts';
import type { DataCube } from '../../cube/cube.ts';
import { normalKey } from './temporal.ts';

const months = (from: number, to: number) =>
  Array.from({ length: (to - from + 1) * 12 }, (_, k) =>
    new Date(Date.UTC(from + Math.floor(k / 12), k % 12, 15)).toISOString(),
  );
const x = spatial('x', [5, 15]);

describe('climatological_normal and anomaly', () => {
  // Monthly values: month + year / 1000 in cell 0, twice that in cell 1.
  const labels = months(1979, 2012);
  const cube = cubeOf(
    [temporal(labels), x],
    (i) => {
      const date = new Date(labels[Math.floor(i / 2)]!);
      const v = date.getUTCMonth() + 1 + date.getUTCFullYear() / 1000;
      return i % 2 === 0 ? v : 2 * v;
    },
    { chunkShape: [40, 2] },
  );

  it('averages each month over the climatology period only', async () => {
    const normals = (await run('climatological_normal', {
      data: cube,
      period: 'month',
      climatology_period: [1981, 2010],
    })) as DataCube;
    expect(normals.dimension('t')!.labels).toEqual([
      '01',
      '02',
      '03',
      '04',
      '05',
      '06',
      '07',
      '08',
      '09',
      '10',
      '11',
      '12',
    ]);
    const values = await valuesOf(normals);
    for (let m = 1; m <= 12; m++) {
      expect(values[(m - 1) * 2]).toBeCloseTo(m + 1995.5 / 1000, 12);
      expect(values[(m - 1) * 2 + 1]).toBeCloseTo(2 * (m + 1995.5 / 1000), 12);
    }
  });

  it('counts the winter that starts in December before the period, never the one left open at its end', async () => {
    const normals = (await run('climatological_normal', {
      data: cube,
      period: 'season',
      climatology_period: [1981, 2010],
    })) as DataCube;
    expect(normals.dimension('t')!.labels).toEqual(['djf', 'mam', 'jja', 'son']);
    // djf: December 1980-2009 (12 + year/1000) and January, February 1981-2010.
    const djf = [...Array(30)].flatMap((_, k) => [
      12 + (1980 + k) / 1000,
      1 + (1981 + k) / 1000,
      2 + (1981 + k) / 1000,
    ]);
    expect((await valuesOf(normals))[0]).toBeCloseTo(djf.reduce((a, b) => a + b, 0) / djf.length, 12);
  });

  it('labels days 001 to 365, leaving 29 February out', async () => {
    const days = Array.from({ length: 366 * 2 }, (_, k) => new Date(Date.UTC(2000, 0, 1 + k)).toISOString());
    const daily = cubeOf([temporal(days)], (i) => i);
    const normals = (await run('climatological_normal', {
      data: daily,
      period: 'day',
      climatology_period: [2000, 2001],
    })) as DataCube;
    const values = await valuesOf(normals);
    expect(normals.dimension('t')!.labels.length).toBe(365);
    expect(values[58]).toBe((58 + 366 + 58) / 2); // 28 February: 2000's day 59 and 2001's day 59
    expect(values[59]).toBe((60 + 366 + 59) / 2); // 1 March follows it in both years
  });

  it('subtracts from each month of aggregated data the normal of its month', async () => {
    const normals = await run('climatological_normal', {
      data: cube,
      period: 'month',
      climatology_period: [1981, 2010],
    });
    const monthly = await run('aggregate_temporal_period', {
      data: cube,
      period: 'month',
      reducer: callback('mean', { data: { from_parameter: 'data' } }),
    });
    const anomalies = (await run('anomaly', { data: monthly, normals, period: 'month' })) as DataCube;
    const values = await valuesOf(anomalies);
    // January 1979: (1 + 1.979) - (1 + 1.9955) in cell 0.
    expect(values[0]).toBeCloseTo(1.979 - 1.9955, 12);
    expect(anomalies.dimension('t')!.labels[0]).toBe('1979-01');
    // Raw dates find their month too.
    const raw = (await run('anomaly', { data: cube, normals, period: 'month' })) as DataCube;
    expect((await valuesOf(raw))[0]).toBeCloseTo(1.979 - 1.9955, 12);
  });

  it.each([
    ['2024-03', 'month', '03'],
    ['2023-djf', 'season', 'djf'],
    ['2024-036', 'day', '036'],
    ['2020', 'year', '2020'],
    ['2024-07-04T00:00:00Z', 'tropical-season', 'mjjaso'],
    ['2024-02-10', 'dekad', '04'],
  ])('maps the data label %s of period %s to the normals label %s', (label, period, key) => {
    expect(normalKey(label, period)).toBe(key);
  });

  it('filter_labels keeps the labels a condition accepts', async () => {
    const filtered = (await run('filter_labels', {
      data: cube,
      dimension: 'x',
      condition: callback('gt', { x: { from_parameter: 'value' }, y: 10 }),
    })) as DataCube;
    expect(filtered.dimension('x')!.labels).toEqual([15]);
    expect((await valuesOf(filtered))[0]).toBeCloseTo(2 * (1 + 1.979), 12);
  });
});
