import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import h5wasm from 'h5wasm/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPeriod, periodRange, type Period } from '../periods/index.ts';
import { gridCovering } from './raster-grid.ts';
import { sampleValue } from '../providers/sample.ts';
import { readCommittedCube } from './committed-cube.ts';
import { NETCDF_FILE } from './layout.ts';
import { openCubeSink, openVersionWriter } from './open.ts';
import type { RasterCubeDescription } from './raster-cube.ts';
import type { StoreFormat } from './store.ts';

// 5 x 4 cells in chunks of 2 x 3: edge chunks in both directions.
const grid = gridCovering([0, 0, 0.4, 0.5], 0.1);
const plane = (p: Period) =>
  Float32Array.from({ length: grid.lat.length * grid.lon.length }, (_, n) =>
    sampleValue(1, 0, 0, Math.floor(n / grid.lon.length), n % grid.lon.length, p.start.getTime() / 86_400_000),
  );
const cubeOf = (periods: Period[]): RasterCubeDescription => ({
  variable: 'value',
  periodType: 'daily',
  periods,
  grid,
  attributes: { title: 'append test' },
  chunks: [4, 2, 3],
});

/** The values of a later run of the provider: not those of the first. */
const rerunPlane = (p: Period) => plane(p).map((v) => v + 1000);

async function writeWhole(dir: string, format: StoreFormat, periods: Period[], values = (p: Period) => plane(p)) {
  await mkdir(dir, { recursive: true });
  const sink = await openCubeSink(dir, format, cubeOf(periods));
  for (const p of periods) await sink.append(values(p));
  await sink.finish();
}

async function append(previous: string, dir: string, format: StoreFormat, all: Period[], from: number) {
  await mkdir(dir, { recursive: true });
  const sink = await openCubeSink(dir, format, cubeOf(all), previous);
  for (const p of all.slice(from)) await sink.append(plane(p));
  return sink.finish();
}

/** Every file under `dir` with the hash of its bytes. */
async function hashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      out[path.slice(dir.length + 1)] = createHash('sha256')
        .update(await readFile(path))
        .digest('hex');
    }
  return out;
}

let root: string;
const days = periodRange('daily', '2024-12-25', '2025-01-12');
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cube-append-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('openCubeSink with a previous version', () => {
  it.each<[string, StoreFormat]>([
    ['Zarr v2', { format: 'zarr', zarrVersion: 2 }],
    ['Zarr v3', { format: 'zarr', zarrVersion: 3 }],
  ])('appends to a %s store twice, byte for byte like a store written whole', async (name, format) => {
    const base = join(root, name.replace(/\W/g, ''));
    // 10 periods: two complete blocks of 4 and a partial one of 2.
    await writeWhole(join(base, 'v1'), format, days.slice(0, 10));
    const before = await hashes(join(base, 'v1'));
    // +3 (the partial block fills up and one more starts), then +6.
    await append(join(base, 'v1'), join(base, 'v2'), format, days.slice(0, 13), 10);
    const coverage = await append(join(base, 'v2'), join(base, 'v3'), format, days, 13);
    await writeWhole(join(base, 'whole'), format, days);

    expect(coverage.temporal).toEqual({ start: '2024-12-25', end: '2025-01-12' });
    expect(await hashes(join(base, 'v3'))).toEqual(await hashes(join(base, 'whole')));
    expect(await hashes(join(base, 'v1'))).toEqual(before);
    expect((await readCommittedCube(join(base, 'v3'), 'zarr', 'daily')).periods).toEqual(days.map(formatPeriod));
    // Complete blocks are shared with the previous version, not copied.
    const key = format.zarrVersion === 3 ? ['value', 'c', '0', '0', '0'] : ['value', '0.0.0'];
    expect((await stat(join(base, 'v3', ...key))).ino).toBe((await stat(join(base, 'v1', ...key))).ino);
    expect((await stat(join(base, 'v3', ...key))).nlink).toBe(3);
  });

  it('rewrites a NetCDF-4 file whole with the previous periods first', async () => {
    const format: StoreFormat = { format: 'netcdf', zarrVersion: 2 };
    const base = join(root, 'netcdf');
    await writeWhole(join(base, 'v1'), format, days.slice(0, 10));
    await append(join(base, 'v1'), join(base, 'v2'), format, days, 10);
    expect((await readCommittedCube(join(base, 'v2'), 'netcdf', 'daily')).periods).toEqual(days.map(formatPeriod));
    await h5wasm.ready;
    const file = new h5wasm.File(join(base, 'v2', NETCDF_FILE), 'r');
    try {
      const values = (file.get('value') as InstanceType<typeof h5wasm.Dataset>).value as Float32Array;
      const size = grid.lat.length * grid.lon.length;
      days.forEach((p, t) => expect(values.slice(t * size, (t + 1) * size)).toEqual(plane(p)));
    } finally {
      file.close();
    }
  });
});

describe('openCubeSink splicing fetched periods into a previous version', () => {
  // Blocks of 4 periods. Each case: the previous version's periods, the fetched ones, the blocks shared unchanged.
  const cases: [string, [number, number], [number, number], number[]][] = [
    ['inside the stored periods', [0, 19], [5, 7], [0, 2, 3, 4]],
    ['overlapping the stored end', [0, 10], [9, 15], [0, 1]],
    ['before and into the stored start', [6, 19], [0, 8], []],
  ];
  const formats: [string, StoreFormat][] = [
    ['Zarr v2', { format: 'zarr', zarrVersion: 2 }],
    ['Zarr v3', { format: 'zarr', zarrVersion: 3 }],
    ['NetCDF-4', { format: 'netcdf', zarrVersion: 2 }],
  ];

  it.each(formats.flatMap(([name, format]) => cases.map(([label, ...c]) => [name, label, format, ...c] as const)))(
    '%s: fetched periods %s make the union, byte for byte like it written whole, unchanged blocks shared',
    async (name, label, format, stored, fetched, shared) => {
      const base = join(root, 'splice', `${name}-${label}`.replace(/\W/g, ''));
      await writeWhole(join(base, 'v1'), format, days.slice(...stored));
      const before = await hashes(join(base, 'v1'));
      const union = days.slice(Math.min(stored[0], fetched[0]), Math.max(stored[1], fetched[1]));
      const index = (p: Period) => days.findIndex((d) => d.start.getTime() === p.start.getTime());
      const isFetched = (p: Period) => index(p) >= fetched[0] && index(p) < fetched[1];
      await mkdir(join(base, 'v2'), { recursive: true });
      const sink = await openCubeSink(join(base, 'v2'), format, cubeOf(union), join(base, 'v1'), {
        offset: union.findIndex((p) => index(p) === stored[0]),
        from: union.findIndex((p) => index(p) === fetched[0]),
        to: union.findIndex((p) => index(p) === fetched[0]) + fetched[1] - fetched[0],
      });
      for (const p of days.slice(...fetched)) await sink.append(rerunPlane(p));
      const coverage = await sink.finish();
      expect(coverage.temporal).toEqual({ start: formatPeriod(union[0]!), end: formatPeriod(union.at(-1)!) });
      await writeWhole(join(base, 'whole'), format, union, (p) => (isFetched(p) ? rerunPlane(p) : plane(p)));
      expect(await hashes(join(base, 'v2'))).toEqual(await hashes(join(base, 'whole')));
      expect(await hashes(join(base, 'v1'))).toEqual(before);
      if (format.format !== 'zarr') return;
      const chunkFile = (t: number) =>
        format.zarrVersion === 3 ? ['value', 'c', String(t), '0', '0'] : ['value', `${t}.0.0`];
      const blocks = Math.ceil(union.length / 4);
      for (let t = 0; t < blocks; t++) {
        const [previous, next] = [join(base, 'v1', ...chunkFile(t)), join(base, 'v2', ...chunkFile(t))];
        const sameFile = (await stat(previous).catch(() => undefined))?.ino === (await stat(next)).ino;
        expect(sameFile, `block ${t} shared`).toBe(shared.includes(t));
      }
    },
  );
});

describe('openVersionWriter, discarded while chunk writes are in flight', () => {
  it('leaves no staging directory behind: the writes settle before it is removed', async () => {
    const root = await mkdtemp(join(tmpdir(), 'stratus-discard-'));
    try {
      const periods = periodRange('daily', '2024-01-01', '2024-01-08');
      // 1000 x 1000 cells, a chunk a day: each append hands over a 4 MB chunk, still compressing at the discard.
      const large = gridCovering([0, 0, 10, 10], 0.01);
      const writer = await openVersionWriter(root, 'ds', 'v1', { format: 'zarr', zarrVersion: 2 }, undefined, {
        ...cubeOf(periods),
        grid: large,
        chunks: [1, 1000, 1000],
      });
      const values = Float32Array.from({ length: 1000 * 1000 }, (_, i) => Math.sin(i));
      for (let day = 0; day < 4; day++) await writer.sink.append(values);
      await writer.discard();
      // Writes still in flight after the removal would put the directory back.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await readdir(join(root, 'datasets', 'ds', 'staging')).catch(() => [])).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
