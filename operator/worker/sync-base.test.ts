import { describe, expect, it } from 'vitest';
import { parsePeriod, periodRange } from '../../core/periods/index.ts';
import { gridCovering } from '../../core/stores/raster-grid.ts';
import { RunError } from '../../core/runs/errors.ts';
import type { IngestionInput } from './ingestion-input.ts';
import { checkSameGrid, readSyncBase, unionOf, type SyncBase } from './sync-base.ts';

const grid = gridCovering([0, 0, 1, 1], 0.1);
const base: SyncBase = {
  dir: '/store/datasets/sample/versions/v1',
  periods: periodRange('daily', '2024-01-01', '2024-01-10'),
  lat: grid.lat,
  lon: grid.lon,
};

const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err as RunError;
  }
  throw new Error('expected a RunError');
};

describe('sync base', () => {
  it.each([
    ['follow them (an append)', '2024-01-11', '2024-01-12', '2024-01-01', 12, { offset: 0, from: 10, to: 12 }],
    ['lie inside them', '2024-01-03', '2024-01-05', '2024-01-01', 10, { offset: 0, from: 2, to: 5 }],
    ['overlap their end', '2024-01-09', '2024-01-13', '2024-01-01', 13, { offset: 0, from: 8, to: 13 }],
    ['precede them', '2023-12-30', '2023-12-31', '2023-12-30', 12, { offset: 2, from: 0, to: 2 }],
  ])('splices fetched periods that %s into the stored ones', (_name, first, last, unionStart, length, splice) => {
    const union = unionOf(base, periodRange('daily', first, last));
    expect(union.periods).toHaveLength(length);
    expect(union.periods[0]).toEqual(parsePeriod('daily', unionStart));
    expect(union.splice).toEqual(splice);
  });

  it.each([
    ['after', '2024-01-12', '2024-01-13'],
    ['before', '2023-12-28', '2023-12-30'],
  ])('refuses fetched periods that leave a gap %s the stored ones', (_name, first, last) => {
    const err = errorOf(() => unionOf(base, periodRange('daily', first, last)));
    expect(err).toBeInstanceOf(RunError);
    expect(err.message).toMatch(/store holds 2024-01-01 to 2024-01-10; .* would leave a gap/);
  });

  it('accepts the same grid and refuses a spatial shape change', () => {
    expect(() => checkSameGrid(base, grid)).not.toThrow();
    const wider = gridCovering([0, 0, 1.5, 1], 0.1);
    const err = errorOf(() => checkSameGrid(base, wider));
    expect(err).toMatchObject({ code: 'SpatialShapeChanged' });
    expect(err.message).toMatch(/10 x 15 grid, the store holds 10 x 10/);
    const shifted = { ...grid, lon: grid.lon.map((v) => v + 0.1) };
    expect(errorOf(() => checkSameGrid(base, shifted))).toMatchObject({ code: 'SpatialShapeChanged' });
  });

  it.each([
    'datasets/other/versions/v1',
    'datasets/sample/versions/..',
    'datasets/sample/versions/v1/../../x',
    '../v1',
  ])('refuses the base %s, which is not a version of the dataset', async (path) => {
    const input = { datasetId: 'sample', storageRoot: '/store', base: path, dataset: { periodType: 'daily' } };
    await expect(readSyncBase(input as IngestionInput)).rejects.toMatchObject({ code: 'InvalidInput' });
  });
});
