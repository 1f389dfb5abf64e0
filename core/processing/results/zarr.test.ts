import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cubeOf, spatial, temporal } from '../../../test/support/cubes.ts';
import { DataCube } from '../cube/cube.ts';
import type { Dimension } from '../cube/dimension.ts';
import { ProcessingError } from '../errors.ts';
import { cfLayout } from './cf-raster.ts';
import { outputFormat } from './outputs.ts';
import { cubeZarr, zarrPlan } from './zarr.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratus-zarr-result-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bands: Dimension = { name: 'bands', type: 'bands', labels: ['precip', '2m temp'] };
const days = temporal(['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05']);
// North-up, 0.5° cells: 7 rows from 10.75 down, 9 columns from -3.75 east.
const y = spatial(
  'y',
  Array.from({ length: 7 }, (_, i) => 10.75 - i / 2),
  'EPSG:4326',
);
const x = spatial(
  'x',
  Array.from({ length: 9 }, (_, i) => -3.75 + i / 2),
  'EPSG:4326',
);

/** The value at (t, band, row, col); every 11th cell nodata. */
const valueAt = (t: number, b: number, row: number, col: number) =>
  (((t * 2 + b) * 7 + row) * 9 + col) % 11 === 0 ? Number.NaN : t * 1000 + b * 100 + row * 10 + col + 0.25;

/** A (t, bands, y, x) cube in chunks that neither the grid nor one another divide. */
const cube = (chunkShape = [2, 1, 4, 5]) =>
  cubeOf(
    [days, bands, y, x],
    (i) => valueAt(Math.floor(i / 126), Math.floor(i / 63) % 2, Math.floor(i / 9) % 7, i % 9),
    {
      chunkShape,
    },
  );

/** The cube with its chunk reads counted. */
function counted(inner: DataCube) {
  const reads = new Map<string, number>();
  const cube = new DataCube({
    metadata: inner.metadata,
    readChunk: async (index, signal) => {
      reads.set(index.join(), (reads.get(index.join()) ?? 0) + 1);
      return inner.source.readChunk(index, signal);
    },
  });
  return { cube, reads };
}

interface ZArray {
  shape: number[];
  chunks: number[];
  dtype: string;
  compressor: { id: string } | null;
  fill_value: unknown;
}

/** The store read back without Stratus's reader: .zmetadata, and each chunk inflated and placed by hand. */
async function readStore(root: string) {
  const consolidated = JSON.parse(await readFile(join(root, '.zmetadata'), 'utf8')) as {
    metadata: Record<string, Record<string, unknown>>;
  };
  const metadata = consolidated.metadata;
  const variable = async (name: string) => {
    const array = metadata[`${name}/.zarray`] as unknown as ZArray;
    const [shape, chunks] = [array.shape, array.chunks];
    const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
    const counts = shape.map((n, i) => Math.ceil(n / chunks[i]!));
    const index = counts.map(() => 0);
    for (;;) {
      const bytes = inflateSync(await readFile(join(root, name, index.join('.'))));
      const chunk = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
      expect(chunk.length).toBe(chunks.reduce((a, b) => a * b, 1));
      chunk.forEach((v, k) => {
        const at = chunks.map((_, d) => Math.floor(k / chunks.slice(d + 1).reduce((a, b) => a * b, 1)) % chunks[d]!);
        const cell = at.map((c, d) => index[d]! * chunks[d]! + c);
        if (cell.some((c, d) => c >= shape[d]!)) return expect(v).toBeNaN();
        values[cell.reduce((o, c, d) => o * shape[d]! + c, 0)] = v;
      });
      let d = index.length - 1;
      for (; d >= 0; d--) {
        if (++index[d]! < counts[d]!) break;
        index[d] = 0;
      }
      if (d < 0) break;
    }
    return values;
  };
  return { metadata, array: (name: string) => metadata[`${name}/.zarray`] as unknown as ZArray, variable };
}

describe('Zarr results', () => {
  it('writes a variable per band in the cube chunks, reading each chunk once and never the whole cube', async () => {
    const { cube: source, reads } = counted(cube());
    // Fewer cells allowed in memory than the cube has: only a block at a time is read. Blocks of 40 cells at most,
    // so that the cube's 2 x 4 x 5 chunks are not grown and the store has edge chunks.
    await cubeZarr(source, dir, 100, undefined, 40);
    const store = await readStore(dir);
    expect(Object.keys(store.metadata).filter((k) => k.endsWith('.zarray'))).toEqual([
      'time/.zarray',
      'lat/.zarray',
      'lon/.zarray',
      'spatial_ref/.zarray',
      'precip/.zarray',
      '_2m_temp/.zarray',
    ]);
    expect(store.array('precip')).toMatchObject({
      shape: [5, 7, 9],
      dtype: '<f4',
      compressor: { id: 'zlib' },
      fill_value: 'NaN',
    });
    expect(store.array('precip').chunks).toEqual([2, 4, 5]);
    expect(store.metadata['precip/.zattrs']).toMatchObject({
      _ARRAY_DIMENSIONS: ['time', 'lat', 'lon'],
      grid_mapping: 'spatial_ref',
      long_name: 'precip',
    });
    expect(store.metadata['_2m_temp/.zattrs']).toMatchObject({ long_name: '2m temp' });
    expect(store.metadata['spatial_ref/.zattrs']).toMatchObject({
      crs_wkt: expect.stringContaining('WGS 84'),
      GeoTransform: '-4 0.5 0 11 0 -0.5',
    });
    expect([...reads.values()].every((n) => n === 1)).toBe(true);
    expect(reads.size).toBe(3 * 2 * 2 * 2);
    for (const [b, name] of ['precip', '_2m_temp'].entries()) {
      const values = await store.variable(name);
      values.forEach((v, k) => {
        const [t, row, col] = [Math.floor(k / 63), Math.floor(k / 9) % 7, k % 9];
        const expected = valueAt(t, b, row, col);
        if (Number.isNaN(expected)) expect(v).toBeNaN();
        else expect(v).toBe(expected);
      });
    }
  });

  it('keeps the cube chunks when they are near 2 MiB, and reads a block of bands as the cube chunks them', () => {
    const big = new DataCube({
      metadata: {
        dimensions: [
          temporal(Array.from({ length: 40 }, (_, i) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString())),
          bands,
          spatial(
            'y',
            Array.from({ length: 600 }, (_, i) => 60 - i / 10),
            'EPSG:4326',
          ),
          spatial(
            'x',
            Array.from({ length: 700 }, (_, i) => i / 10),
            'EPSG:4326',
          ),
        ],
        dtype: 'float32',
        cellType: 'number',
        chunkShape: [8, 2, 256, 256],
      },
      readChunk: () => Promise.reject(new Error('not read')),
    });
    expect(zarrPlan(big, cfLayout(big, 'Zarr'))).toEqual({ chunks: [8, 256, 256], bandsPerRead: 2, streamed: true });
    // Chunks of one row: grown along time to the whole axis, then along lat by whole multiples.
    const rows = new DataCube({ ...big.source, metadata: { ...big.metadata, chunkShape: [1, 1, 1, 700] } });
    expect(zarrPlan(rows, cfLayout(rows, 'Zarr')).chunks).toEqual([40, 18, 700]);
    // One chunk of the whole cube: too large to read as blocks, so read whole in the stores' chunks.
    const one = new DataCube({ ...big.source, metadata: { ...big.metadata, chunkShape: [40, 2, 600, 700] } });
    expect(zarrPlan(one, cfLayout(one, 'Zarr'))).toEqual({ chunks: [8, 256, 256], bandsPerRead: 2, streamed: false });
  });

  it('reads a cube with oversized chunks whole under maxCells and writes the same values', async () => {
    const oversized = cube([5, 2, 7, 9]);
    await expect(cubeZarr(oversized, dir, 100, undefined, 10)).rejects.toMatchObject({
      code: 'ProcessGraphComplexity',
    });
    const { cube: source, reads } = counted(oversized);
    await cubeZarr(source, dir, 1000, undefined, 10);
    expect([...reads.values()]).toEqual([1]);
    const store = await readStore(dir);
    expect(store.array('precip').chunks).toEqual([5, 7, 9]);
    const values = await store.variable('_2m_temp');
    expect(values[0]).toBe(valueAt(0, 1, 0, 0));
    expect(values[4 * 63 + 6 * 9 + 8]).toBe(valueAt(4, 1, 6, 8));
  });

  it('names the variable value without a bands dimension, and has no time without a temporal one', async () => {
    const map = cubeOf([y, x], (i) => i, { chunkShape: [3, 4] });
    await cubeZarr(map, dir, 1000);
    const store = await readStore(dir);
    expect(Object.keys(store.metadata).filter((k) => k.endsWith('.zarray'))).toEqual([
      'lat/.zarray',
      'lon/.zarray',
      'spatial_ref/.zarray',
      'value/.zarray',
    ]);
    expect(store.metadata['value/.zattrs']).toMatchObject({ _ARRAY_DIMENSIONS: ['lat', 'lon'] });
    expect([...(await store.variable('value'))]).toEqual(Array.from({ length: 63 }, (_, i) => i));
  });

  it('is refused as a single file, and for a grid that is not EPSG:4326', async () => {
    const format = outputFormat('zarr')!;
    expect(format).toMatchObject({ mediaType: 'application/vnd+zarr', fileName: 'result.zarr' });
    const refusal = await format.write(cube(), 1e6).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ProcessingError);
    expect(refusal).toMatchObject({ code: 'FormatUnsuitable', message: /batch job/ });
    const utm = cubeOf([spatial('y', [10, 0]), spatial('x', [0, 10])], () => 1);
    await expect(cubeZarr(utm, dir, 1000)).rejects.toMatchObject({ code: 'FormatUnsuitable' });
  });

  it('writes the same store when parts write their blocks of time at once', async () => {
    // A block budget of one cube chunk keeps the time chunks at the cube's 2 days: 3 along time for 3 parts.
    const whole = join(dir, 'whole');
    const shared = join(dir, 'shared');
    await cubeZarr(cube(), whole, 1e6, undefined, 40);
    const parts = [0, 1, 2].map(() => counted(cube()));
    await Promise.all(parts.map(({ cube: c }, index) => cubeZarr(c, shared, 1e6, undefined, 40, { index, count: 3 })));
    const files = async (root: string) => (await readdir(root, { recursive: true })).sort();
    expect(await files(shared)).toEqual(await files(whole));
    for (const name of await files(whole))
      if (!name.endsWith('precip') && !name.endsWith('2m temp') && !name.endsWith('time'))
        expect(await readFile(join(shared, name)).catch(() => 'directory')).toEqual(
          await readFile(join(whole, name)).catch(() => 'directory'),
        );
    // Each part read only the cube chunks of its block of time.
    expect(parts.map(({ reads }) => [...new Set([...reads.keys()].map((k) => k.split(',')[0]))])).toEqual([
      ['0'],
      ['1'],
      ['2'],
    ]);
  });

  it('leaves a store without time to the first part', async () => {
    const oneDay = cubeOf([bands, y, x], (i) => i, { chunkShape: [1, 4, 5] });
    const shared = join(dir, 'no-time');
    const [first, second] = [counted(oneDay), counted(oneDay)];
    await cubeZarr(first.cube, shared, 1e6, undefined, undefined, { index: 0, count: 2 });
    await cubeZarr(second.cube, shared, 1e6, undefined, undefined, { index: 1, count: 2 });
    expect(first.reads.size).toBeGreaterThan(0);
    expect(second.reads.size).toBe(0);
  });

  it('stops at the next block once aborted', async () => {
    const controller = new AbortController();
    const { cube: source, reads } = counted(cube([1, 1, 7, 9]));
    const inner = source.source.readChunk.bind(source.source);
    const aborting = new DataCube({
      metadata: { ...source.metadata, chunkShape: [1, 1, 7, 9] },
      readChunk: async (index, signal) => {
        if (reads.size === 2) controller.abort();
        return inner(index, signal);
      },
    });
    // Blocks of 63 cells at most: the cube's one-step chunks are not grown, and each is a block.
    await expect(cubeZarr(aborting, dir, 1000, controller.signal, 63)).rejects.toThrow();
    expect(reads.size).toBe(3);
  });
});
