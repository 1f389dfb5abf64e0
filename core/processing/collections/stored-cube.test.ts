import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodRange } from '../../periods/index.ts';
import { gridCovering } from '../../providers/raster.ts';
import { directoryStore } from '../../stores/directory-store.ts';
import { RasterCubeWriter } from '../../stores/raster-cube.ts';
import { materialize } from '../cube/read.ts';
import { openStoredCube } from './stored-cube.ts';

describe('a stored Zarr version as a lazy data cube', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-stored-cube-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Five days on a 0.5 degree grid, in chunks that do not divide it, value = day * 1000 + cell; cell 3 is nodata. */
  async function written(zarrVersion: 2 | 3) {
    const grid = gridCovering([-13.5, 6.9, -10.2, 10.0], 0.5);
    const periods = periodRange('daily', '2024-01-01', '2024-01-05');
    const cells = grid.lat.length * grid.lon.length;
    const path = join(dir, `v${zarrVersion}`);
    const writer = await RasterCubeWriter.create(path, {
      variable: 'precip',
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

  it('refuses a directory that holds no Zarr group', async () => {
    await expect(openStoredCube(directoryStore(join(dir, 'nothing')))).rejects.toThrow(/no Zarr group/);
  });
});
