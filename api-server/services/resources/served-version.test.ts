import { describe, expect, it } from 'vitest';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { HttpError } from '../../errors.ts';
import { readVersion, versionNotFound } from './served-version.ts';

const netcdf = {
  apiVersion: 'climate.stratus.dev/v1alpha1',
  kind: 'Dataset',
  metadata: { name: 'rain', namespace: 'default' },
  spec: { source: 's', datasetName: 'Rain', format: 'netcdf', zarrVersion: 2, publish: true },
} as Dataset;
const clusterOf = (dataset?: Dataset) => ({ get: async () => dataset as never });

describe('versionNotFound (the 404 of a reader without a version)', () => {
  it.each([
    ['dataset', 'Dataset rain not found'],
    ['format', 'Dataset rain is not stored as Zarr'],
    ['version', 'Dataset rain has no stored version yet'],
  ] as const)('says why for a missing %s', (miss, detail) => {
    const error = versionNotFound('rain', miss, { formatName: 'Zarr' });
    expect(error).toBeInstanceOf(HttpError);
    expect([error.code, error.message]).toEqual(['NotFound', detail]);
  });
});

describe('readVersion', () => {
  it('throws the 404 of the first miss, read from the resource store', async () => {
    await expect(readVersion(clusterOf(), 'default', 'rain')).rejects.toThrow('Dataset rain not found');
    const zarr = { formats: ['zarr', 'icechunk'], formatName: 'Zarr' } as const;
    await expect(readVersion(clusterOf(netcdf), 'default', 'rain', zarr)).rejects.toThrow(
      'Dataset rain is not stored as Zarr',
    );
    await expect(readVersion(clusterOf(netcdf), 'default', 'rain')).rejects.toThrow(
      'Dataset rain has no stored version yet',
    );
  });
});
