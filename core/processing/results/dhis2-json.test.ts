import { describe, expect, it } from 'vitest';
import type { Dimension } from '../cube/dimension.ts';
import { memoryCube } from '../cube/memory.ts';
import { ProcessingError } from '../errors.ts';
import { formatValue, vectorDhis2Json } from './dhis2-json.ts';

const districts: Dimension = { name: 'geometry', type: 'geometry', labels: ['OU_A', 'OU_B'], crs: 'EPSG:4326' };
const geometries = ['OU_A', 'OU_B'].map((id, i) => ({
  type: 'Feature' as const,
  id,
  geometry: { type: 'Point' as const, coordinates: [i, i] },
  properties: {},
}));
const months: Dimension = {
  name: 't',
  type: 'temporal',
  labels: ['2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z'],
};
const bands: Dimension = { name: 'bands', type: 'bands', labels: ['precip', 'temp'] };

/** Values of (geometry, t, bands): OU_A then OU_B, January then February, precip then temp. */
const cube = () =>
  memoryCube({
    dimensions: [districts, months, bands],
    data: Float64Array.from([1.5, 20, Number.NaN, 21, 3, 22.1234567, 4, 23]),
    geometries,
  });

const parse = async (options: Record<string, unknown>) =>
  JSON.parse(await vectorDhis2Json(cube(), 1e6, undefined, options)) as { dataValues: Record<string, string>[] };

describe('dhis2-json', () => {
  it('writes a data value per org unit, period and mapped band, leaving nodata out', async () => {
    const { dataValues } = await parse({
      data_elements: { precip: 'DE_P', temp: 'DE_T' },
      category_option_combo: 'COC',
    });
    expect(dataValues).toEqual([
      { dataElement: 'DE_P', period: '202401', orgUnit: 'OU_A', value: '1.5', categoryOptionCombo: 'COC' },
      { dataElement: 'DE_T', period: '202401', orgUnit: 'OU_A', value: '20', categoryOptionCombo: 'COC' },
      { dataElement: 'DE_T', period: '202402', orgUnit: 'OU_A', value: '21', categoryOptionCombo: 'COC' },
      { dataElement: 'DE_P', period: '202401', orgUnit: 'OU_B', value: '3', categoryOptionCombo: 'COC' },
      { dataElement: 'DE_T', period: '202401', orgUnit: 'OU_B', value: '22.123457', categoryOptionCombo: 'COC' },
      { dataElement: 'DE_P', period: '202402', orgUnit: 'OU_B', value: '4', categoryOptionCombo: 'COC' },
      { dataElement: 'DE_T', period: '202402', orgUnit: 'OU_B', value: '23', categoryOptionCombo: 'COC' },
    ]);
  });

  it('leaves out bands the mapping does not name, and takes the period type it is given', async () => {
    const { dataValues } = await parse({ data_elements: { temp: 'DE_T' }, period_type: 'daily' });
    expect(dataValues.map((v) => `${v.orgUnit}/${v.period}/${v.dataElement}`)).toEqual([
      'OU_A/20240101/DE_T',
      'OU_A/20240201/DE_T',
      'OU_B/20240101/DE_T',
      'OU_B/20240201/DE_T',
    ]);
  });

  it('reads the period labels of aggregate_temporal_period, asking which of month and week is meant', async () => {
    const labelled = (labels: string[]) =>
      memoryCube({
        dimensions: [districts, { name: 't', type: 'temporal', labels }],
        data: Float64Array.from([1, 2, 3, 4]),
        geometries,
      });
    const periods = async (labels: string[], options: Record<string, unknown>) =>
      (
        JSON.parse(await vectorDhis2Json(labelled(labels), 1e6, undefined, { data_element: 'D', ...options })) as {
          dataValues: { period: string }[];
        }
      ).dataValues.map((v) => v.period);
    expect(await periods(['2024-01', '2024-02'], { period_type: 'monthly' })).toEqual([
      '202401',
      '202402',
      '202401',
      '202402',
    ]);
    expect(await periods(['2024-01', '2024-02'], { period_type: 'weekly' })).toEqual([
      '2024W1',
      '2024W2',
      '2024W1',
      '2024W2',
    ]);
    expect(await periods(['2024-032', '2024-060'], {})).toEqual(['20240201', '20240229', '20240201', '20240229']);
    expect(await periods(['2023', '2024'], {})).toEqual(['2023', '2024', '2023', '2024']);
    await expect(periods(['2024-01', '2024-02'], {})).rejects.toMatchObject({
      message: /set period_type to monthly or weekly/,
    });
  });

  it('writes values as decimal strings of at most six places, without exponents, and leaves infinities out', async () => {
    expect([1.5, -0.25, 22.1234567, 1e-7, -1e-7, 2.5e-6, 123456789.123, 1e22, -(2 ** 70)].map(formatValue)).toEqual([
      '1.5',
      '-0.25',
      '22.123457',
      '0',
      '0',
      '0.000003',
      '123456789.123',
      '10000000000000000000000',
      '-1180591620717411303424',
    ]);
    const infinite = memoryCube({
      dimensions: [districts, months],
      data: Float64Array.from([Number.POSITIVE_INFINITY, 1, 2, Number.NEGATIVE_INFINITY]),
      geometries,
    });
    const { dataValues } = JSON.parse(await vectorDhis2Json(infinite, 1e6, undefined, { data_element: 'D' })) as {
      dataValues: Record<string, string>[];
    };
    expect(dataValues.map((v) => `${v.orgUnit}/${v.period}/${v.value}`)).toEqual(['OU_A/202402/1', 'OU_B/202401/2']);
  });

  it.each([
    [{}, /data_elements/],
    [{ data_element: 'X' }, /2 bands: map them with data_elements/],
    [{ data_elements: { rain: 'X' } }, /band 'rain', which the cube does not have/],
    [{ data_elements: { precip: 3 } }, /not an id/],
    [{ data_elements: { precip: 'X' }, period_type: 'dekadal' }, /period_type must be one of/],
  ])('refuses options %j with ProcessParameterInvalid', async (options, message) => {
    const refusal = await vectorDhis2Json(cube(), 1e6, undefined, options).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ProcessingError);
    expect(refusal).toMatchObject({ code: 'ProcessParameterInvalid', message });
  });
});
