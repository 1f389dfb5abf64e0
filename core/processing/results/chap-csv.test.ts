import { describe, expect, it } from 'vitest';
import type { Dimension } from '../cube/dimension.ts';
import { memoryCube } from '../cube/memory.ts';
import { ProcessingError } from '../errors.ts';
import { vectorChapCsv } from './chap-csv.ts';

/** Geometries labelled in an order that is not the sorted one, so that sorting shows. */
const districts = (ids: string[]): Dimension => ({ name: 'geometry', type: 'geometry', labels: ids, crs: 'EPSG:4326' });
const features = (ids: string[]) =>
  ids.map((id, i) => ({
    type: 'Feature' as const,
    id,
    geometry: { type: 'Point' as const, coordinates: [i, i] },
    properties: {},
  }));
const time = (labels: string[]): Dimension => ({ name: 't', type: 'temporal', labels });
const bands: Dimension = { name: 'bands', type: 'bands', labels: ['rainfall', 'mean_temperature'] };

/** A cube of (geometry, t, bands) with `values` in that order. */
const cube = (ids: string[], labels: string[], values: number[]) =>
  memoryCube({
    dimensions: [districts(ids), time(labels), bands],
    data: Float64Array.from(values),
    geometries: features(ids),
  });

const lines = (csv: string) => csv.trimEnd().split('\r\n');

describe('chap-csv', () => {
  it("writes CHAP's header and a row per location and period, sorted by location, then period", async () => {
    const unsorted = cube(
      ['OU_B', 'OU_A'],
      ['2024-02-01T00:00:00Z', '2024-01-01T00:00:00Z'],
      [3, 23, 4, 24.1234567, 1.5, 21, 2, 22],
    );
    expect(lines(await vectorChapCsv(unsorted, 1e6))).toEqual([
      'time_period,location,rainfall,mean_temperature',
      '2024-01,OU_A,2,22',
      '2024-02,OU_A,1.5,21',
      '2024-01,OU_B,4,24.123457',
      '2024-02,OU_B,3,23',
    ]);
  });

  it("writes ISO weeks across a year boundary, and days, in CHAP's forms", async () => {
    const weeks = cube(['OU_A'], ['2020-12-21', '2020-12-28', '2021-01-04'], [1, 2, 3, 4, 5, 6]);
    expect(lines(await vectorChapCsv(weeks, 1e6, undefined, { period_type: 'weekly' })).slice(1)).toEqual([
      '2020-W52,OU_A,1,2',
      '2020-W53,OU_A,3,4',
      '2021-W01,OU_A,5,6',
    ]);
    // aggregate_temporal_period's week labels, from the last week of 2020 into 2021, read as weeks.
    const labelled = cube(['OU_A'], ['2020-53', '2021-01'], [1, 2, 3, 4]);
    expect(lines(await vectorChapCsv(labelled, 1e6, undefined, { period_type: 'weekly' })).slice(1)).toEqual([
      '2020-W53,OU_A,1,2',
      '2021-W01,OU_A,3,4',
    ]);
    const days = cube(['OU_A'], ['2024-059', '2024-060'], [1, 2, 3, 4]);
    expect(lines(await vectorChapCsv(days, 1e6)).slice(1)).toEqual(['2024-02-28,OU_A,1,2', '2024-02-29,OU_A,3,4']);
  });

  describe('gaps', () => {
    // March has no time step, and OU_A has no rainfall in January.
    const gappy = () =>
      cube(
        ['OU_A', 'OU_B'],
        ['2024-01-01', '2024-02-01', '2024-04-01'],
        [Number.NaN, 20, 2, 21, 4, 23, 5, 25, 6, 26, 8, 28],
      );

    it("are refused under continuity 'error' (the default), naming the first", async () => {
      for (const options of [{}, { continuity: 'error' }]) {
        const refusal = await vectorChapCsv(gappy(), 1e6, undefined, options).catch((err: unknown) => err);
        expect(refusal).toBeInstanceOf(ProcessingError);
        expect(refusal).toMatchObject({
          code: 'FormatUnsuitable',
          message: expect.stringContaining('the first: period 2024-03 has no time step') as string,
        });
      }
      const hole = cube(['OU_A'], ['2024-01-01', '2024-02-01'], [1, 2, 3, Number.NaN]);
      await expect(vectorChapCsv(hole, 1e6)).rejects.toMatchObject({
        message: /the first: location 'OU_A' has no mean_temperature in 2024-02/,
      });
    });

    it("are written empty under 'warn', with a warning, and under 'ignore', without", async () => {
      const expected = [
        'time_period,location,rainfall,mean_temperature',
        '2024-01,OU_A,,20',
        '2024-02,OU_A,2,21',
        '2024-03,OU_A,,',
        '2024-04,OU_A,4,23',
        '2024-01,OU_B,5,25',
        '2024-02,OU_B,6,26',
        '2024-03,OU_B,,',
        '2024-04,OU_B,8,28',
      ];
      const warnings: string[] = [];
      const warned = await vectorChapCsv(gappy(), 1e6, undefined, { continuity: 'warn' }, (m) => warnings.push(m));
      expect(lines(warned)).toEqual(expected);
      expect(warnings).toEqual([
        'chap-csv: 2 gaps written as empty values (the first: period 2024-03 has no time step).',
      ]);
      const ignoring: string[] = [];
      const ignored = await vectorChapCsv(gappy(), 1e6, undefined, { continuity: 'ignore' }, (m) => ignoring.push(m));
      expect(lines(ignored)).toEqual(expected);
      expect(ignoring).toEqual([]);
    });
  });

  it.each([
    [{ continuity: 'fill' }, 'ProcessParameterInvalid', /continuity must be one of error, warn, ignore/],
    [{ period_type: 'yearly' }, 'ProcessParameterInvalid', /period_type must be one of daily, weekly, monthly/],
  ])('refuses options %j with %s', async (options, code, message) => {
    const months = cube(['OU_A'], ['2024-01-01', '2024-02-01'], [1, 2, 3, 4]);
    await expect(vectorChapCsv(months, 1e6, undefined, options)).rejects.toMatchObject({ code, message });
  });

  it('refuses years, and two labels of one period', async () => {
    await expect(vectorChapCsv(cube(['OU_A'], ['2023', '2024'], [1, 2, 3, 4]), 1e6)).rejects.toMatchObject({
      code: 'FormatUnsuitable',
      message: /yearly periods; chap-csv takes daily, weekly, monthly/,
    });
    const twice = cube(['OU_A'], ['2024-01-01', '2024-01-15'], [1, 2, 3, 4]);
    await expect(vectorChapCsv(twice, 1e6, undefined, { period_type: 'monthly' })).rejects.toMatchObject({
      message: /'2024-01-01' and '2024-01-15' are one monthly period \(2024-01\)/,
    });
  });
});
