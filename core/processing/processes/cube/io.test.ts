import { describe, expect, it } from 'vitest';
import { cubeOf, run, spatial, temporal, valuesOf } from '../../../../test/support/cubes.ts';
import type { DataCube } from '../../cube/cube.ts';
import type { MaybeEmptyFeature } from '../../values/geojson.ts';
import type { CollectionRequest, EngineServices, ResultSink } from '../../services.ts';

/** A UTM zone 32 cube: 3 days × 2 bands × 4 rows × 5 columns of 100 m north of Münster. */
function collection(): DataCube {
  const x = spatial('x', [404850, 404950, 405050, 405150, 405250], 'EPSG:32632');
  const y = spatial('y', [5757550, 5757450, 5757350, 5757250], 'EPSG:32632');
  const t = temporal(['2024-05-01T00:00:00Z', '2024-05-02T00:00:00Z', '2024-05-03T00:00:00Z']);
  const bands = { name: 'bands', type: 'bands' as const, labels: ['red', 'nir'] };
  return cubeOf([t, bands, y, x], (i) => i, { chunkShape: [1, 1, 2, 2] });
}

function services(requests: CollectionRequest[] = [], saved: unknown[] = []): EngineServices {
  const sink: ResultSink = {
    formats: () => ['JSON', 'GTiff'],
    save: async (data, format) => {
      saved.push({ data, format });
      return true;
    },
  };
  return {
    collections: {
      open: async (id, request) => {
        requests.push(request);
        return id === 'sample' ? { cube: collection(), properties: { platform: 'sample-sat' } } : undefined;
      },
    },
    features: {
      get: async (id) =>
        id === 'districts'
          ? {
              features: [
                {
                  id: 'a',
                  geometry: { type: 'Point', coordinates: [7.6, 51.9] },
                  properties: { population: 10, name: 'A' },
                },
                {
                  id: 'b',
                  geometry: { type: 'Point', coordinates: [7.7, 51.95] },
                  properties: { population: 20, name: 'B' },
                },
              ] satisfies MaybeEmptyFeature[],
            }
          : undefined,
    },
    results: sink,
  };
}

describe('load_collection, save_result, load_geojson and load_features', () => {
  it('loads a collection restricted to a bounding box in another CRS, an interval and bands in their order', async () => {
    const requests: CollectionRequest[] = [];
    const cube = (await run(
      'load_collection',
      {
        id: 'sample',
        // 404900-405100 × 5757300-5757500 in UTM, as longitude/latitude.
        spatial_extent: { west: 7.6162, south: 51.95823, east: 7.61905, north: 51.96008 },
        temporal_extent: ['2024-05-02', null],
        bands: ['nir', 'red'],
      },
      { services: services(requests) },
    )) as DataCube;
    expect(requests[0]).toMatchObject({ bands: ['nir', 'red'], temporalExtent: [Date.UTC(2024, 4, 2), null] });
    expect(cube.dimension('t')!.labels).toEqual(['2024-05-02T00:00:00Z', '2024-05-03T00:00:00Z']);
    expect(cube.dimension('bands')!.labels).toEqual(['nir', 'red']);
    expect(cube.dimension('x')!.labels).toEqual([404950, 405050]);
    expect(cube.dimension('y')!.labels).toEqual([5757450, 5757350]);
    // t1, nir, row 1, column 1: 1·40 + 1·20 + 1·5 + 1.
    expect((await valuesOf(cube))[0]).toBe(66);
  });

  it('answers CollectionNotFound, NoDataAvailable, and evaluates property filters', async () => {
    await expect(
      run('load_collection', { id: 'nope', spatial_extent: null, temporal_extent: null }, { services: services() }),
    ).rejects.toMatchObject({
      code: 'CollectionNotFound',
      status: 404,
    });
    await expect(
      run(
        'load_collection',
        { id: 'sample', spatial_extent: null, temporal_extent: ['2030-01-01', null] },
        { services: services() },
      ),
    ).rejects.toMatchObject({ code: 'NoDataAvailable' });
    const platform = (value: string) => ({
      platform: {
        process_graph: {
          eq: { process_id: 'eq', arguments: { x: { from_parameter: 'value' }, y: value }, result: true },
        },
      },
    });
    await expect(
      run(
        'load_collection',
        { id: 'sample', spatial_extent: null, temporal_extent: null, properties: platform('other') },
        { services: services() },
      ),
    ).rejects.toMatchObject({ code: 'NoDataAvailable' });
    const kept = (await run(
      'load_collection',
      { id: 'sample', spatial_extent: null, temporal_extent: null, properties: platform('sample-sat') },
      { services: services() },
    )) as DataCube;
    expect(kept.shape).toEqual([3, 2, 4, 5]);
  });

  it('selects a retained version with a property filter on version, the served one first', async () => {
    const requests: CollectionRequest[] = [];
    const versioned: EngineServices = {
      collections: {
        versions: async (id) => (id === 'sample' ? ['v3', 'v2', 'v1'] : undefined),
        open: async (_id, request) => {
          requests.push(request);
          return { cube: collection(), properties: { version: request.version ?? 'v3' } };
        },
      },
    };
    const version = (process_graph: Record<string, unknown>) => ({ version: { process_graph } });
    const eq = (y: string) => ({
      eq: { process_id: 'eq', arguments: { x: { from_parameter: 'value' }, y }, result: true },
    });
    const load = (properties?: unknown) =>
      run(
        'load_collection',
        { id: 'sample', spatial_extent: null, temporal_extent: null, ...(properties !== undefined && { properties }) },
        { services: versioned },
      );
    await load(version(eq('v1')));
    await load();
    const notServed = {
      neq: { process_id: 'neq', arguments: { x: { from_parameter: 'value' }, y: 'v3' }, result: true },
    };
    await load(version(notServed));
    expect(requests.map((r) => r.version)).toEqual(['v1', undefined, 'v2']);
    const missing = load(version(eq('v9')));
    await expect(missing).rejects.toMatchObject({ code: 'NoDataAvailable' });
    await expect(missing).rejects.toThrow(
      "No retained version of collection 'sample' matches the property filter on 'version' (retained: v3, v2, v1).",
    );
  });

  it('hands a cube to the result sink in a format it writes, and refuses others and empty cubes', async () => {
    const saved: unknown[] = [];
    expect(await run('save_result', { data: collection(), format: 'gtiff' }, { services: services([], saved) })).toBe(
      true,
    );
    expect(saved).toHaveLength(1);
    await expect(
      run('save_result', { data: collection(), format: 'PNG' }, { services: services() }),
    ).rejects.toMatchObject({
      code: 'ProcessParameterInvalid',
    });
    const empty = await run('filter_bands', { data: collection(), bands: ['swir'] });
    await expect(run('save_result', { data: empty, format: 'JSON' }, { services: services() })).rejects.toMatchObject({
      code: 'DataCubeEmpty',
    });
  });

  it('turns GeoJSON and stored feature collections into vector cubes with a properties dimension', async () => {
    const geojson = (await run('load_geojson', {
      data: {
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', id: 'p', geometry: { type: 'Point', coordinates: [1, 2] }, properties: { a: 1, b: true } },
          { type: 'Feature', id: 'q', geometry: { type: 'Point', coordinates: [3, 4] }, properties: { a: 'x' } },
        ],
      },
      properties: ['a', 'b'],
    })) as DataCube;
    expect(geojson.dimensions.map((d) => [d.name, d.type, d.labels])).toEqual([
      ['geometry', 'geometry', ['p', 'q']],
      ['properties', 'other', ['a', 'b']],
    ]);
    expect(await valuesOf(geojson)).toEqual([1, 1, NaN, NaN]);
    const stored = (await run(
      'load_features',
      { id: 'districts', properties: ['population'] },
      { services: services() },
    )) as DataCube;
    expect(await valuesOf(stored)).toEqual([10, 20]);
    expect(stored.metadata.geometries).toHaveLength(2);
    await expect(run('load_features', { id: 'rivers' }, { services: services() })).rejects.toMatchObject({
      code: 'FeatureCollectionNotFound',
      status: 404,
    });
  });
});
