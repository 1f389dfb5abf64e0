import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { python } from '../../test/support/python.ts';
import { periodRange } from '../periods/index.ts';
import { sampleProvider } from '../providers/sample.ts';
import { chunkShape, PARALLEL_CHUNKS, partPeriods, partsChunkShape, RasterCubeWriter } from './raster-cube.ts';
import type { WritableStore } from './store.ts';

const READERS = join(import.meta.dirname, '../../test/interop/zarr-readers.py');

interface ReaderView {
  xarray: {
    dims: string[];
    shape: number[];
    time: string[];
    lat0: number;
    lon0: number;
    epsg: number | null;
    transform: number[];
    units: string;
  };
  gdal: { size: number[]; geotransform: number[]; epsg: number | null; first_band_equals_xarray: boolean };
}

describe('chunkShape', () => {
  it('aims at about 2 MiB of float32 per chunk, spatial chunks at most 256', () => {
    expect(chunkShape(366, 62, 66)).toEqual([128, 62, 66]);
    expect(chunkShape(20, 62, 66)).toEqual([20, 62, 66]);
    expect(chunkShape(3650, 1000, 800)).toEqual([8, 256, 256]);
  });
});

describe('RasterCubeWriter', () => {
  let dir: string;
  const periods = periodRange('daily', '2024-02-20', '2024-03-10');
  const bbox: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];
  const expected: Float32Array[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-cube-'));
    // 0.01 degrees gives 330 x 310 cells: 2 x 2 spatial chunks with padded edges and 3 time blocks of 8.
    const session = await sampleProvider.open({
      parameters: { resolution: 0.01 },
      bbox,
      signal: new AbortController().signal,
    });
    const writer = await RasterCubeWriter.create(dir, {
      variable: 'value',
      units: '1',
      longName: 'Sample value',
      periodType: 'daily',
      periods,
      grid: session.grid,
      attributes: { title: 'test' },
    });
    expect(writer.chunkShape).toEqual([8, 256, 256]);
    for (const period of periods) {
      const values = await session.read(period);
      expected.push(values);
      await writer.append(values);
    }
    const coverage = await writer.finish();
    expect(coverage).toEqual({
      spatial: { xmin: -13.5, ymin: 6.9, xmax: -10.2, ymax: 10 },
      temporal: { start: '2024-02-20', end: '2024-03-10' },
    });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes consolidated metadata naming every array', async () => {
    const consolidated = JSON.parse(await readFile(join(dir, '.zmetadata'), 'utf8'));
    expect(Object.keys(consolidated.metadata).sort()).toEqual(
      [
        '.zattrs',
        '.zgroup',
        ...['lat', 'lon', 'spatial_ref', 'time', 'value'].flatMap((a) => [`${a}/.zarray`, `${a}/.zattrs`]),
      ].sort(),
    );
    expect(consolidated.metadata['value/.zarray']).toMatchObject({ shape: [20, 310, 330], chunks: [8, 256, 256] });
    expect((await readdir(join(dir, 'value'))).filter((k) => !k.startsWith('.')).sort()).toHaveLength(3 * 2 * 2);
  });

  it('is read by xarray, rioxarray and GDAL with the values and georeferencing written', async () => {
    const valuesFile = join(dir, '..', `values-${process.pid}.f32`);
    const view = await python<ReaderView>(await readFile(READERS, 'utf8'), [dir, 'value', valuesFile]);
    try {
      expect(view.xarray).toMatchObject({
        dims: ['time', 'lat', 'lon'],
        shape: [20, 310, 330],
        epsg: 4326,
        units: '1',
      });
      expect(view.xarray.time[0]).toBe('2024-02-20T00:00:00');
      expect(view.xarray.time[19]).toBe('2024-03-10T00:00:00');
      expect(view.xarray.lat0).toBeCloseTo(9.995, 9);
      expect(view.xarray.transform.map((v) => Math.round(v * 1e6) / 1e6)).toEqual([-13.5, 0.01, 0, 10, 0, -0.01]);
      const read = new Float32Array((await readFile(valuesFile)).buffer.slice(0));
      const written = new Float32Array(expected.length * expected[0]!.length);
      expected.forEach((plane, t) => written.set(plane, t * plane.length));
      expect(read.length).toBe(written.length);
      expect(Buffer.from(read.buffer).equals(Buffer.from(written.buffer))).toBe(true);

      expect(view.gdal.size).toEqual([20, 310, 330]);
      expect(view.gdal.epsg).toBe(4326);
      expect(view.gdal.geotransform.map((v) => Math.round(v * 1e6) / 1e6)).toEqual([-13.5, 0.01, 0, 10, 0, -0.01]);
      expect(view.gdal.first_band_equals_xarray).toBe(true);
    } finally {
      await rm(valuesFile, { force: true });
    }
  });
});

describe('chunk writes in flight', () => {
  /** A store whose chunk writes of `value/` wait until released, counting how many wait at once. */
  function heldStore() {
    const keys = new Map<string, Uint8Array | string>();
    const held: { key: string; release: (error?: Error) => void }[] = [];
    let most = 0;
    const store: WritableStore = {
      set: (key, value) => {
        if (!key.startsWith('value/') || key.endsWith('.zarray') || key.endsWith('.zattrs')) {
          keys.set(key, value);
          return Promise.resolve();
        }
        return new Promise<void>((resolve, reject) => {
          held.push({
            key,
            release: (error) => (error ? reject(error) : (keys.set(key, value), resolve())),
          });
          most = Math.max(most, held.length);
        });
      },
    };
    const releaseAll = (error?: Error) => held.splice(0).forEach((h) => h.release(error));
    return { store, keys, held, releaseAll, most: () => most };
  }
  const grid = {
    lat: Float64Array.from({ length: 20 }, (_, i) => 10 - i * 0.1),
    lon: Float64Array.from({ length: 20 }, (_, i) => i * 0.1),
    resolution: 0.1,
  };
  const description = (periods: number) => ({
    variable: 'value',
    periodType: 'daily' as const,
    periods: periodRange('daily', '2024-01-01', `2024-01-${String(periods).padStart(2, '0')}`),
    grid,
    attributes: {},
    // One chunk a block of 2 days: every chunk is a block of its own.
    chunks: [2, 20, 20] as [number, number, number],
  });
  const plane = (v: number) => new Float32Array(400).fill(v);

  it('keeps the next blocks filling while earlier ones are written, at most PARALLEL_CHUNKS at once, and written() waits for them', async () => {
    const { store, keys, held, releaseAll, most } = heldStore();
    const blocks = PARALLEL_CHUNKS + 2;
    const writer = await RasterCubeWriter.create(store, description(blocks * 2));
    let appended = 0;
    const appending = (async () => {
      for (let d = 0; d < blocks * 2; d++, appended++) await writer.append(plane(d));
    })();
    // Blocks are handed over without waiting for their writes, until PARALLEL_CHUNKS of them are held.
    await vi.waitFor(() => expect(held).toHaveLength(PARALLEL_CHUNKS));
    expect(appended).toBe(PARALLEL_CHUNKS * 2 + 1);
    let done = false;
    const written = appending.then(() => writer.written()).then(() => (done = true));
    while (!done) {
      releaseAll();
      await new Promise((r) => setTimeout(r, 5));
    }
    await written;
    expect(most()).toBe(PARALLEL_CHUNKS);
    const chunks = [...keys.keys()].filter((k) => /^value\/\d/.test(k)).sort();
    expect(chunks).toEqual(Array.from({ length: blocks }, (_, t) => `value/${t}.0.0`).sort());
  });

  it('throws a failed chunk write from the next append or from finish, never unhandled, and writes no consolidated metadata', async () => {
    const { store, keys, held, releaseAll } = heldStore();
    const writer = await RasterCubeWriter.create(store, description(4));
    for (let d = 0; d < 4; d++) await writer.append(plane(d));
    await vi.waitFor(() => expect(held).toHaveLength(2));
    const finishing = writer.finish();
    releaseAll(new Error('disk full'));
    await expect(finishing).rejects.toThrow('disk full');
    expect(keys.has('.zmetadata')).toBe(false);

    const next = heldStore();
    const failing = await RasterCubeWriter.create(next.store, description(PARALLEL_CHUNKS * 2 + 2));
    for (let d = 0; d < PARALLEL_CHUNKS * 2; d++) await failing.append(plane(d));
    await vi.waitFor(() => expect(next.held).toHaveLength(PARALLEL_CHUNKS));
    next.releaseAll(new Error('disk full'));
    await failing.append(plane(0));
    await expect(failing.append(plane(0))).rejects.toThrow('disk full');
  });
});

describe('a cube written in parts', () => {
  it('shares whole time blocks out, none empty, covering every period once', () => {
    expect(partsChunkShape(3650, 1000, 800, 4)).toEqual([8, 256, 256]);
    // A small grid puts every period in one block: split, each part gets a block of its own.
    expect(partsChunkShape(1000, 20, 20, 3)).toEqual([334, 20, 20]);
    for (const [periods, parts] of [
      [1000, 3],
      [20, 4],
      [3650, 8],
      [7, 7],
    ] as const) {
      const [timeChunk] = partsChunkShape(periods, 40, 40, parts);
      const ranges = Array.from({ length: parts }, (_, i) => partPeriods(periods, timeChunk, i, parts));
      expect(ranges[0]!.from).toBe(0);
      expect(ranges.at(-1)!.to).toBe(periods);
      for (const [i, range] of ranges.entries()) {
        expect(range.to).toBeGreaterThan(range.from);
        expect(range.from % timeChunk).toBe(0);
        if (i > 0) expect(range.from).toBe(ranges[i - 1]!.to);
      }
    }
  });

  it('holds the same files and bytes as the cube written whole', async () => {
    const root = await mkdtemp(join(tmpdir(), 'stratus-cube-parts-'));
    try {
      const periods = periodRange('daily', '2024-01-01', '2024-01-23');
      const session = await sampleProvider.open({
        parameters: { resolution: 0.05 },
        bbox: [-13.5, 6.9, -10.2, 10.0],
        signal: new AbortController().signal,
      });
      const planes = await Promise.all(periods.map((p) => session.read(p)));
      const count = 3;
      const description = {
        variable: 'value',
        periodType: 'daily' as const,
        periods,
        grid: session.grid,
        attributes: { title: 'parts' },
        chunks: partsChunkShape(periods.length, session.grid.lat.length, session.grid.lon.length, count),
      };
      const whole = await RasterCubeWriter.create(join(root, 'whole'), description);
      for (const plane of planes) await whole.append(plane);
      await whole.finish();
      // Parts finish in any order; the last completes the metadata.
      for (const index of [2, 0, 1]) {
        const range = partPeriods(periods.length, description.chunks[0], index, count);
        const part = RasterCubeWriter.part(join(root, 'parts'), description, range);
        for (const plane of planes.slice(range.from, range.to)) await part.append(plane);
        await part.finish();
      }
      await RasterCubeWriter.completeParts(join(root, 'parts'), description);

      const files = async (dir: string) =>
        (await readdir(dir, { recursive: true, withFileTypes: true }))
          .filter((e) => e.isFile())
          .map((e) => join(e.parentPath, e.name).slice(dir.length))
          .sort();
      const names = await files(join(root, 'whole'));
      expect(names.filter((n) => n.startsWith('/value/') && !n.includes('.z'))).toHaveLength(3);
      expect(await files(join(root, 'parts'))).toEqual(names);
      for (const name of names)
        expect(
          (await readFile(join(root, 'parts', name))).equals(await readFile(join(root, 'whole', name))),
          name,
        ).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('refuses a part that does not start or end a time block', () => {
    const periods = periodRange('daily', '2024-01-01', '2024-01-10');
    const grid = { lon: Float64Array.of(0.5), lat: Float64Array.of(0.5), resolution: 1 };
    const description = {
      variable: 'v',
      periodType: 'daily' as const,
      periods,
      grid,
      attributes: {},
      chunks: [4, 1, 1] as [number, number, number],
    };
    expect(() => RasterCubeWriter.part('/nonexistent', description, { from: 2, to: 4 })).toThrow(/time block/);
    expect(() => RasterCubeWriter.part('/nonexistent', description, { from: 0, to: 5 })).toThrow(/time block/);
    expect(() => RasterCubeWriter.part('/nonexistent', description, { from: 8, to: 11 })).toThrow(/not a part/);
  });
});
