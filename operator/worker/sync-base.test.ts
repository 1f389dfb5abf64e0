import { describe, expect, it } from 'vitest';
import { parsePeriod, periodRange } from '../../core/periods/index.ts';
import { gridCovering } from '../../core/providers/raster.ts';
import { RunError } from '../../core/runs/errors.ts';
import type { IngestionInput } from './ingestion-input.ts';
import { checkSameGrid, continuedPeriods, readSyncBase, type SyncBase } from './sync-base.ts';

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
  it('continues the stored periods with the fetched ones', () => {
    const all = continuedPeriods(base, periodRange('daily', '2024-01-11', '2024-01-12'));
    expect(all).toHaveLength(12);
    expect(all[10]).toEqual(parsePeriod('daily', '2024-01-11'));
  });

  it.each([
    ['a gap', '2024-01-12'],
    ['an overlap', '2024-01-10'],
  ])('refuses fetched periods that leave %s', (_name, first) => {
    const err = errorOf(() => continuedPeriods(base, periodRange('daily', first, '2024-01-13')));
    expect(err).toBeInstanceOf(RunError);
    expect(err.message).toMatch(/must continue at 2024-01-11/);
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
