import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { python } from '../../test/support/python.ts';
import { openStoredCube } from '../processing/collections/stored-cube.ts';
import { periodRange } from '../periods/index.ts';
import type { RasterGrid } from './raster-grid.ts';
import { downsample, pyramidGrids } from './pyramid.ts';
import { directoryStore } from './directory-store.ts';
import { RasterCubeWriter } from './raster-cube.ts';
import { zarrSpliceSink } from './zarr/version.ts';

const periods = periodRange('daily', '2024-01-01', '2024-01-02');

/** A square grid of `side` cells of 0.01 degrees, north-up, from (0, 0). */
function squareGrid(side: number): RasterGrid {
  const resolution = 0.01;
  return {
    resolution,
    lon: Float64Array.from({ length: side }, (_, i) => (i + 0.5) * resolution),
    lat: Float64Array.from({ length: side }, (_, j) => (side - j - 0.5) * resolution),
  };
}

/** Values that differ cell by cell and period by period, with a NaN in every 7th cell. */
function plane(side: number, t: number): Float32Array {
  return Float32Array.from({ length: side * side }, (_, p) =>
    p % 7 === 3 ? Number.NaN : ((p * 13 + t * 5) % 101) / 4,
  );
}

async function writeCube(dir: string, side: number): Promise<Float32Array> {
  const writer = await RasterCubeWriter.create(dir, {
    variable: 'value',
    periodType: 'daily',
    periods,
    grid: squareGrid(side),
    attributes: {},
  });
  const all = new Float32Array(periods.length * side * side);
  for (const [t] of periods.entries()) {
    const values = plane(side, t);
    all.set(values, t * side * side);
    await writer.append(values);
  }
  await writer.finish();
  return all;
}

// Level 0 as xarray opens the store by default, and level 1 against numpy's NaN-aware 2 × 2 mean of level 0.
const READ_LEVELS = `
import json, sys, warnings
import numpy as np, xarray as xr
warnings.simplefilter("ignore")
store, written = sys.argv[1], sys.argv[2]
root = xr.open_zarr(store)
level0 = root["value"].values
expected = np.fromfile(written, dtype="<f4").reshape(level0.shape)
level1 = xr.open_zarr(store, group="1")["value"]
t, ny, nx = level0.shape
blocks = level0.reshape(t, ny // 2, 2, nx // 2, 2)
mean = np.nanmean(blocks, axis=(2, 4))
print(json.dumps({
  "root_vars": sorted(root.data_vars),
  "level0_equal": bool(np.array_equal(level0, expected, equal_nan=True)),
  "level1_shape": list(level1.shape),
  "level1_lat0": float(level1["lat"][0]),
  "level1_lon0": float(level1["lon"][0]),
  "level1_max_error": float(np.nanmax(np.abs(level1.values - mean))),
  "level1_nan_equal": bool(np.array_equal(np.isnan(level1.values), np.isnan(mean))),
}))
`;

describe('pyramid levels', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('averages 2 × 2 blocks ignoring NaN, NaN where a block has no value', () => {
    const values = Float32Array.from([1, 3, Number.NaN, Number.NaN, 5, Number.NaN, 6, Number.NaN, 7]);
    expect(Array.from(downsample(values, 1, 3, 3))).toEqual([3, Number.NaN, 6, 7]);
  });

  it('gives a 2048 × 2048 store levels down to one tile, readable by xarray, level 0 as before', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stratus-pyramid-'));
    dirs.push(dir);
    const written = await writeCube(dir, 2048);
    const zattrs = JSON.parse(await readFile(join(dir, '.zattrs'), 'utf8'));
    expect(zattrs.zarr_conventions[0].uuid).toBe('d35379db-88df-4056-af3a-620245f8e347');
    expect(zattrs.multiscales.layout).toEqual([
      { asset: 'value', transform: { scale: [1, 1], translation: [0, 0] } },
      { asset: '1/value', derived_from: 'value', transform: { scale: [2, 2], translation: [0, 0] } },
      { asset: '2/value', derived_from: '1/value', transform: { scale: [2, 2], translation: [0, 0] } },
      { asset: '3/value', derived_from: '2/value', transform: { scale: [2, 2], translation: [0, 0] } },
    ]);
    const consolidated = JSON.parse(await readFile(join(dir, '.zmetadata'), 'utf8')).metadata;
    expect(consolidated['3/value/.zarray']).toMatchObject({ shape: [2, 256, 256], chunks: [2, 256, 256] });
    expect(consolidated['1/value/.zarray']).toMatchObject({ shape: [2, 1024, 1024], chunks: [2, 256, 256] });

    // Stratus's own reader (tiles, processes) opens the root's variable, not a level's.
    expect((await openStoredCube(directoryStore(dir))).shape).toEqual([2, 1, 2048, 2048]);

    const writtenFile = join(dir, '..', `pyramid-${process.pid}.f32`);
    await writeFile(writtenFile, written);
    try {
      const view = await python<Record<string, unknown>>(READ_LEVELS, [dir, writtenFile], 120_000);
      expect(view).toMatchObject({
        root_vars: ['value'],
        level0_equal: true,
        level1_shape: [2, 1024, 1024],
        level1_nan_equal: true,
      });
      expect(view.level1_max_error).toBeLessThan(1e-5);
      expect(view.level1_lat0).toBeCloseTo(20.47, 9);
      expect(view.level1_lon0).toBeCloseTo(0.01, 9);
    } finally {
      await rm(writtenFile, { force: true });
    }
  }, 180_000);

  it('keeps the level chunks of the blocks an append keeps and writes those of the new blocks', async () => {
    const previous = await mkdtemp(join(tmpdir(), 'stratus-pyramid-'));
    const next = await mkdtemp(join(tmpdir(), 'stratus-pyramid-'));
    dirs.push(previous, next);
    await writeCube(previous, 2048);
    const longer = periodRange('daily', '2024-01-01', '2024-01-04');
    const sink = await zarrSpliceSink(next, previous, 2, {
      variable: 'value',
      periodType: 'daily',
      periods: longer,
      grid: squareGrid(2048),
      attributes: {},
    });
    for (const t of [2, 3]) await sink.append(plane(2048, t));
    await sink.finish();
    for (const level of ['1', '2', '3']) {
      const kept = join(level, 'value', '0.0.0');
      expect((await stat(join(next, kept))).ino).toBe((await stat(join(previous, kept))).ino);
      expect((await stat(join(next, level, 'value', '1.0.0'))).isFile()).toBe(true);
    }
    const consolidated = JSON.parse(await readFile(join(next, '.zmetadata'), 'utf8')).metadata;
    expect(consolidated['1/value/.zarray']).toMatchObject({ shape: [4, 1024, 1024] });
  }, 120_000);

  it('gives a 1000 × 1000 store none', async () => {
    expect(pyramidGrids(squareGrid(1000))).toEqual([]);
    const dir = await mkdtemp(join(tmpdir(), 'stratus-pyramid-'));
    dirs.push(dir);
    await writeCube(dir, 1000);
    const zattrs = JSON.parse(await readFile(join(dir, '.zattrs'), 'utf8'));
    expect(zattrs).not.toHaveProperty('multiscales');
    const consolidated = JSON.parse(await readFile(join(dir, '.zmetadata'), 'utf8')).metadata;
    expect(Object.keys(consolidated).filter((key) => /^\d+\//.test(key))).toEqual([]);
  }, 60_000);
});
