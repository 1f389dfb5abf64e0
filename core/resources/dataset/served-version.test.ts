import { describe, expect, it } from 'vitest';
import type { Dataset, DatasetVersion } from './schema.ts';
import { resolveVersion, ZARR_FORMATS } from './served-version.ts';

const coverage = {
  spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 },
  temporal: { start: '2024-01-01', end: '2024-01-02' },
};
const version = (id: string): DatasetVersion => ({
  id,
  createdAt: '2024-01-04T00:00:00Z',
  format: 'zarr',
  coverage,
  path: `datasets/d/versions/${id}`,
});

function dataset(format: Dataset['spec']['format'], status?: Dataset['status']): Dataset {
  return {
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'Dataset',
    metadata: { name: 'd', namespace: 'default' },
    spec: { source: 's', datasetName: 'D', format, zarrVersion: 2, publish: true },
    status,
  } as Dataset;
}

describe('resolveVersion (the version a reader reads)', () => {
  it('gives the entry of status.versions that status.currentVersion names, with its dataset', () => {
    const served = dataset('zarr', { currentVersion: 'v2', versions: [version('v1'), version('v2'), version('v3')] });
    expect(resolveVersion(served)).toEqual({ dataset: served, version: version('v2') });
    expect(resolveVersion(served, { formats: ZARR_FORMATS }).version?.id).toBe('v2');
  });

  it.each([
    ['no dataset', undefined, 'dataset'],
    ['a dataset with no status', dataset('zarr'), 'version'],
    ['a dataset whose versions hold no current one', dataset('zarr', { versions: [version('v1')] }), 'version'],
    [
      'a current version named but not listed',
      dataset('zarr', { currentVersion: 'v9', versions: [version('v1')] }),
      'version',
    ],
  ])('misses for %s', (_name, given, miss) => {
    expect(resolveVersion(given)).toEqual({ miss });
  });

  it('misses a format the reader does not open before looking at versions', () => {
    const netcdf = dataset('netcdf');
    expect(resolveVersion(netcdf, { formats: ZARR_FORMATS })).toEqual({ miss: 'format' });
    expect(resolveVersion(netcdf, { formats: ['netcdf'] })).toEqual({ miss: 'version' });
    const stored = dataset('icechunk', { currentVersion: 'v1', versions: [version('v1')] });
    expect(resolveVersion(stored, { formats: ['icechunk'] }).version?.id).toBe('v1');
    expect(resolveVersion(stored, { formats: ['zarr'] })).toEqual({ miss: 'format' });
  });

  it('gives a retained version a reader names, by its id or by the Icechunk snapshot holding it', () => {
    const snapshotted = { ...version('v1'), snapshot: 'SNAP1' };
    const served = dataset('icechunk', { currentVersion: 'v2', versions: [snapshotted, version('v2')] });
    expect(resolveVersion(served, { version: 'v1' }).version).toEqual(snapshotted);
    expect(resolveVersion(served, { version: 'SNAP1' }).version).toEqual(snapshotted);
    expect(resolveVersion(served, { version: 'v2', formats: ZARR_FORMATS }).version?.id).toBe('v2');
  });

  it('misses a named version that is not retained, after the dataset and the format', () => {
    const served = dataset('zarr', { currentVersion: 'v2', versions: [version('v2')] });
    expect(resolveVersion(served, { version: 'v1' })).toEqual({ miss: 'named' });
    expect(resolveVersion(undefined, { version: 'v1' })).toEqual({ miss: 'dataset' });
    expect(resolveVersion(served, { version: 'v2', formats: ['netcdf'] })).toEqual({ miss: 'format' });
  });
});
