import { describe, expect, it } from 'vitest';
import { cubeOf, run, spatial, temporal } from '../../../../test/support/cubes.ts';
import { collectReferences } from '../../jobs/references.ts';
import { outputFormat } from '../../results/outputs.ts';
import type { EngineServices } from '../../services.ts';
import type { MaybeEmptyFeature } from '../../values/geojson.ts';

/** January and February 2024, day by day. */
const DAYS = Array.from({ length: 60 }, (_, d) => new Date(Date.UTC(2024, 0, 1 + d)).toISOString().slice(0, 10));

/** A 2 × 2 EPSG:4326 grid of one band, whose western column holds `west` and eastern column `east` every day. */
function dataset(band: string, west: number, east: number) {
  const bands = { name: 'bands', type: 'bands' as const, labels: [band] };
  const dimensions = [
    temporal(DAYS),
    bands,
    spatial('y', [1.5, 0.5], 'EPSG:4326'),
    spatial('x', [0.5, 1.5], 'EPSG:4326'),
  ];
  return cubeOf(dimensions, (i) => (i % 2 === 0 ? west : east), { chunkShape: [16, 1, 2, 2] });
}

const square = (id: string, west: number): MaybeEmptyFeature => ({
  id,
  geometry: {
    type: 'Polygon',
    coordinates: [
      [
        [west, 0],
        [west + 1, 0],
        [west + 1, 2],
        [west, 2],
        [west, 0],
      ],
    ],
  },
  properties: {},
});

/** Datasets `rain` (band `pr`, 1 and 2 mm a day) and `heat` (band `tas`, 10 and 30), districts WEST and EAST. */
function services(files: string[]): EngineServices {
  const datasets: Record<string, () => ReturnType<typeof dataset>> = {
    rain: () => dataset('pr', 1, 2),
    heat: () => dataset('tas', 10, 30),
    other: () => dataset('tas', 0, 0),
  };
  return {
    collections: { open: async (id) => (datasets[id] ? { cube: datasets[id]() } : undefined) },
    features: {
      get: async (id) => (id === 'districts' ? { features: [square('WEST', 0), square('EAST', 1)] } : undefined),
    },
    results: {
      formats: () => ['chap-csv', 'dhis2-json'],
      save: async (data, format, options) => {
        const body = await outputFormat(format)!.write(data, 1e6, undefined, options);
        files.push(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
        return true;
      },
    },
  };
}

describe('aggregate_to_chap_csv', () => {
  it('writes a column per dataset named as CHAP names it: period totals of rain, period means of the rest', async () => {
    const files: string[] = [];
    const args = { datasets: ['rain', 'heat'], features: 'districts', period_type: 'monthly' };
    expect(await run('aggregate_to_chap_csv', args, { services: services(files) })).toBe(true);
    expect(files[0]!.trimEnd().split('\r\n')).toEqual([
      'time_period,location,rainfall,mean_temperature',
      '2024-01,EAST,62,30',
      '2024-02,EAST,58,30',
      '2024-01,WEST,31,10',
      '2024-02,WEST,29,10',
    ]);
  });

  it('takes the statistics, the temporal extent and column names it is given', async () => {
    const files: string[] = [];
    const args = {
      datasets: ['rain'],
      features: 'districts',
      period_type: 'weekly',
      temporal_extent: ['2024-01-01', '2024-01-15'],
      temporal_statistic: 'max',
      statistic: 'sum',
      columns: { rain: 'precipitation_max' },
    };
    await run('aggregate_to_chap_csv', args, { services: services(files) });
    // Two pixels a district, each with a largest day of 1 (west) or 2 (east).
    expect(files[0]!.trimEnd().split('\r\n')).toEqual([
      'time_period,location,precipitation_max',
      '2024-W01,EAST,4',
      '2024-W02,EAST,4',
      '2024-W01,WEST,2',
      '2024-W02,WEST,2',
    ]);
  });

  it('refuses two datasets of one column, and names the node inside it that failed', async () => {
    const both = { datasets: ['heat', 'other'], features: 'districts' };
    await expect(run('aggregate_to_chap_csv', both, { services: services([]) })).rejects.toMatchObject({
      code: 'ProcessParameterInvalid',
      message: /datasets 'heat' and 'other' both give the column 'mean_temperature': name one in columns/,
    });
    const stray = { datasets: ['heat'], features: 'districts', columns: { rain: 'x' } };
    await expect(run('aggregate_to_chap_csv', stray, { services: services([]) })).rejects.toMatchObject({
      message: /'rain' is not one of the datasets/,
    });
    const nowhere = { datasets: ['heat'], features: 'nowhere' };
    await expect(run('aggregate_to_chap_csv', nowhere, { services: services([]) })).rejects.toMatchObject({
      code: 'FeatureCollectionNotFound',
      node: 'node/features',
    });
  });
});

describe('aggregate_to_dhis2_json', () => {
  it('writes a data value per org unit, period and dataset, with the data element of each dataset', async () => {
    const files: string[] = [];
    const args = {
      datasets: ['rain', 'heat'],
      features: 'districts',
      data_elements: { rain: 'DE_RAIN', heat: 'DE_TEMP' },
      period_type: 'monthly',
    };
    await run('aggregate_to_dhis2_json', args, { services: services(files) });
    const { dataValues } = JSON.parse(files[0]!) as { dataValues: Record<string, string>[] };
    expect(dataValues.map((v) => `${v.orgUnit} ${v.period} ${v.dataElement} ${v.value}`).sort()).toEqual([
      'EAST 202401 DE_RAIN 62',
      'EAST 202401 DE_TEMP 30',
      'EAST 202402 DE_RAIN 58',
      'EAST 202402 DE_TEMP 30',
      'WEST 202401 DE_RAIN 31',
      'WEST 202401 DE_TEMP 10',
      'WEST 202402 DE_RAIN 29',
      'WEST 202402 DE_TEMP 10',
    ]);
  });

  it('refuses a dataset without a data element', async () => {
    const args = { datasets: ['rain', 'heat'], features: 'districts', data_elements: { rain: 'DE_RAIN' } };
    await expect(run('aggregate_to_dhis2_json', args, { services: services([]) })).rejects.toMatchObject({
      code: 'ProcessParameterInvalid',
      message: /dataset 'heat' has no data element/,
    });
  });
});

describe('the export workflows in a graph', () => {
  it('name the datasets and the feature collection a job pins', () => {
    const graph = {
      chap: {
        process_id: 'aggregate_to_chap_csv',
        arguments: { datasets: ['rain', 'heat'], features: 'districts' },
        result: true,
      },
    };
    const references = collectReferences(graph, () => true);
    expect([...references.collections]).toEqual(['rain', 'heat']);
    expect([...references.featureCollections]).toEqual(['districts']);
  });
});
