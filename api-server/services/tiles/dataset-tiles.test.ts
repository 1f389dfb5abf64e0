import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tileMercatorBounds, TILE_SIZE } from '../../../core/render/tiles.ts';
import type { RasterGrid } from '../../../core/stores/raster-grid.ts';
import { build } from '../../test/build.ts';
import { publishedDataset } from '../../test/published-dataset.ts';
import { DatasetTiles } from './dataset-tiles.ts';

/** 2048 × 2048 cells of 0.01 degrees from (0, 0) to (20.48, 20.48): levels 1 to 3 of 0.02, 0.04 and 0.08 degrees. */
const SIDE = 2048;
const RESOLUTION = 0.01;
const grid: RasterGrid = {
  resolution: RESOLUTION,
  lon: Float64Array.from({ length: SIDE }, (_, i) => (i + 0.5) * RESOLUTION),
  lat: Float64Array.from({ length: SIDE }, (_, j) => (SIDE - j - 0.5) * RESOLUTION),
};
/** Level 0's value of a cell: a pattern that differs cell by cell, so that a wrong block or level shows. */
const cell = (col: number, row: number, period: number) => Math.fround(((col * 7 + row * 13) % 101) / 4 + period);
const plane = (period: number) =>
  Float32Array.from({ length: SIDE * SIDE }, (_, p) => cell(p % SIDE, Math.floor(p / SIDE), period));

/** The longitude and latitude of the centre of pixel (i, j) of a tile. */
function pixelCentre(z: number, x: number, y: number, i: number, j: number): [number, number] {
  const radius = 6378137;
  const m = tileMercatorBounds(z, x, y);
  const pixel = (m.east - m.west) / TILE_SIZE;
  const degrees = (radians: number) => (radians * 180) / Math.PI;
  const my = m.north - (j + 0.5) * pixel;
  return [degrees((m.west + (i + 0.5) * pixel) / radius), degrees(2 * Math.atan(Math.exp(my / radius)) - Math.PI / 2)];
}

describe('dataset tiles over multiscale levels', () => {
  it('draws a zoom-3 tile from the coarsest level, each pixel the mean of the level 0 cells under its level cell', async () => {
    const built = await build();
    await publishedDataset(built, 'fine', { grid, plane });
    // Without level 0's chunks, only a tile read from a level has values: a tile that read level 0 would be empty.
    const level0 = join(built.storageRoot, 'datasets/fine/versions/v1/precip');
    const chunkFiles = (await readdir(level0)).filter((name) => /^\d+\.\d+\.\d+$/.test(name));
    expect(chunkFiles).toHaveLength(64);
    await Promise.all(chunkFiles.map((name) => rm(join(level0, name))));

    const tiles = new DatasetTiles(built.cluster, 'default', built.storageRoot);
    const tiled = await tiles.version({ id: 'fine' });
    expect(tiled.levels.map((level) => level.grid.width)).toEqual([2048, 1024, 512, 256]);
    // Zoom 3's tile over (0, 0) to (45, 41) degrees: its pixels span 0.176 degrees of longitude and at least 0.13
    // of latitude, so level 3's 0.08-degree cells fit and level 0 is not read.
    const [z, x, y, period] = [3, 4, 3, 2];
    const values = await tiles.tileValues(tiled, period, { z, x, y });
    const block = 8;
    let drawn = 0;
    for (let j = 0; j < TILE_SIZE; j++)
      for (let i = 0; i < TILE_SIZE; i++) {
        const [lon, lat] = pixelCentre(z, x, y, i, j);
        const [col, row] = [
          Math.floor(lon / (RESOLUTION * block)),
          Math.floor((SIDE * RESOLUTION - lat) / (RESOLUTION * block)),
        ];
        const value = values[j * TILE_SIZE + i]!;
        if (col < 0 || row < 0 || col >= SIDE / block || row >= SIDE / block) {
          expect([i, j, value]).toEqual([i, j, Number.NaN]);
          continue;
        }
        let sum = 0;
        for (let dy = 0; dy < block; dy++)
          for (let dx = 0; dx < block; dx++) sum += cell(col * block + dx, row * block + dy, period);
        expect(Math.abs(value - sum / block ** 2)).toBeLessThan(1e-4);
        drawn++;
      }
    // The grid covers about a quarter of the tile's width and half its height.
    expect(drawn).toBeGreaterThan(TILE_SIZE * TILE_SIZE * 0.05);

    // Zoom 10's pixels span less than a level 0 cell: such a tile reads level 0, whose chunks are gone.
    const fine = await tiles.tileValues(tiled, period, { z: 10, x: 540, y: 482 });
    expect(fine.every(Number.isNaN)).toBe(true);
  }, 120_000);
});
