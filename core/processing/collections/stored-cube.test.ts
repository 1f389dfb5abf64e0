import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodRange } from '../../periods/index.ts';
import { gridCovering } from '../../stores/raster-grid.ts';
import { directoryStore } from '../../stores/directory-store.ts';
import { RasterCubeWriter } from '../../stores/raster-cube.ts';
import { configureProcessPool } from '../../workers/pool.ts';
import type { DataCube } from '../cube/cube.ts';
import { materialize } from '../cube/read.ts';
import { runProcessGraph } from '../engine.ts';
import { openStoredCube } from './stored-cube.ts';

describe('a stored Zarr version as a lazy data cube', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-stored-cube-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Five days on a 0.5 degree grid, in chunks that do not divide it, value = day * 1000 + cell; cell 3 is nodata. */
  async function written(zarrVersion: 2 | 3, units?: string) {
    const grid = gridCovering([-13.5, 6.9, -10.2, 10.0], 0.5);
    const periods = periodRange('daily', '2024-01-01', '2024-01-05');
    const cells = grid.lat.length * grid.lon.length;
    const path = join(dir, `v${zarrVersion}${units === undefined ? '' : '-units'}`);
    const writer = await RasterCubeWriter.create(path, {
      variable: 'precip',
      ...(units !== undefined && { units }),
      periodType: 'daily',
      periods,
      grid,
      attributes: {},
      zarrVersion,
      chunks: [2, 3, 4],
    });
    const values: number[] = [];
    for (let d = 0; d < periods.length; d++) {
      const day = Float32Array.from({ length: cells }, (_, c) => (c === 3 ? NaN : d * 1000 + c));
      values.push(...day);
      await writer.append(day);
    }
    await writer.finish();
    return { path, grid, values };
  }

  for (const zarrVersion of [2, 3] as const) {
    it(`reads Zarr v${zarrVersion}: openEO dimensions, labels from the coordinates, values with NaN as nodata`, async () => {
      const { path, grid, values } = await written(zarrVersion);
      const cube = await openStoredCube(directoryStore(path));
      expect(cube.dimensions.map((d) => [d.name, d.type])).toEqual([
        ['t', 'temporal'],
        ['bands', 'bands'],
        ['y', 'spatial'],
        ['x', 'spatial'],
      ]);
      expect(cube.dimensions[0]!.labels).toEqual([
        '2024-01-01T00:00:00Z',
        '2024-01-02T00:00:00Z',
        '2024-01-03T00:00:00Z',
        '2024-01-04T00:00:00Z',
        '2024-01-05T00:00:00Z',
      ]);
      expect(cube.dimensions[1]!.labels).toEqual(['precip']);
      expect(cube.dimensions[2]!.labels).toEqual(Array.from(grid.lat));
      expect(cube.dimensions[3]!.labels).toEqual(Array.from(grid.lon));
      expect(cube.dimensions[2]).toMatchObject({ axis: 'y', crs: 'EPSG:4326', step: grid.lat[1]! - grid.lat[0]! });
      expect(cube.metadata.chunkShape).toEqual([2, 1, 3, 4]);
      // Edge chunks are clipped: every chunk together gives back exactly the written cells.
      expect(Array.from(await materialize(cube, 1e6))).toEqual(values);
    });
  }

  /** Means over two polygons from the stored cube, by `aggregate_spatial` (its chunks are read on the pool). */
  async function zonalMeans(path: string): Promise<Float64Array> {
    const square = (x0: number, y0: number, x1: number, y1: number) => ({
      type: 'Feature',
      properties: {},
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [x0, y0],
            [x1, y0],
            [x1, y1],
            [x0, y1],
            [x0, y0],
          ],
        ],
      },
    });
    const geometries = { type: 'FeatureCollection', features: [square(-13.2, 7, -11, 9.6), square(-12, 8, -10.4, 9)] };
    const mean = {
      process_graph: { m: { process_id: 'mean', arguments: { data: { from_parameter: 'data' } }, result: true } },
    };
    const data = await openStoredCube(directoryStore(path));
    const graph = {
      z: { process_id: 'aggregate_spatial', arguments: { data, geometries, reducer: mean }, result: true },
    };
    return (await materialize((await runProcessGraph(graph)) as DataCube, 1e6)) as Float64Array;
  }

  it('gives the same bits with worker threads as on the calling thread', async () => {
    const { path } = await written(2);
    try {
      configureProcessPool(0);
      const inline = await zonalMeans(path);
      configureProcessPool(2);
      const threads = await zonalMeans(path);
      expect(inline.some((v) => Number.isNaN(v))).toBe(false);
      expect(Array.from(threads)).toEqual(Array.from(inline));
    } finally {
      configureProcessPool(availableParallelism());
    }
  });

  it('fails a run whose chunk does not decode with a ZarrFormatError, and goes on serving runs', async () => {
    const { path } = await written(2);
    const good = await zonalMeans(path);
    await writeFile(join(path, 'precip', '1.0.0'), 'not zlib');
    await expect(zonalMeans(path)).rejects.toMatchObject({ name: 'ZarrFormatError' });
    const cube = await openStoredCube(directoryStore(path));
    await expect(materialize(cube, 1e6)).rejects.toMatchObject({ name: 'ZarrFormatError' });
    await rm(join(path, 'precip', '1.0.0'));
    expect((await zonalMeans(path)).length).toBe(good.length);
  });

  it("carries the data variable's CF units, which the climate indices read and convert", async () => {
    const { path } = await written(2, 'kg m-2 s-1');
    const cube = await openStoredCube(directoryStore(path));
    expect(cube.metadata.units).toEqual({ precip: 'kg m-2 s-1' });
    const spi = (await runProcessGraph({
      s: { process_id: 'spi', arguments: { data: cube, scale: 1 }, result: true },
    })) as DataCube;
    expect(spi.metadata.units).toEqual({ spi: '1' });
  });

  it('refuses a stored variable without units with a 400 naming it and the unit expected, never a number', async () => {
    const { path } = await written(2);
    const cube = await openStoredCube(directoryStore(path));
    expect(cube.metadata.units).toBeUndefined();
    await expect(
      runProcessGraph({ s: { process_id: 'spi', arguments: { data: cube, scale: 1 }, result: true } }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'ProcessParameterInvalid',
      message: expect.stringMatching(/variable 'precip' has no units; expected precipitation in 'mm day-1'/),
    });
  });

  it('refuses a directory that holds no Zarr group', async () => {
    await expect(openStoredCube(directoryStore(join(dir, 'nothing')))).rejects.toThrow(/no Zarr group/);
  });
});
