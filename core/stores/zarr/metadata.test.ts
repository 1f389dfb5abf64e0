import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { python } from '../../../test/support/python.ts';
import { writeDailyStore } from '../../../test/support/stored-cubes.ts';
import { periodRange } from '../../periods/index.ts';
import { gridCovering } from '../raster-grid.ts';
import { directoryStore } from '../directory-store.ts';
import { coordinatesOf, readZarrArray, readZarrGroup, ZarrFormatError } from './metadata.ts';
import { readChunk, readVector } from './read.ts';

// 5 x 4 cells in chunks of 2 x 3 (edge chunks both ways), 6 days in blocks of 4 (a partly filled last block).
const grid = gridCovering([0, 0, 0.4, 0.5], 0.1);
const periods = periodRange('daily', '2024-01-01', '2024-01-06');
const [ny, nx] = [grid.lat.length, grid.lon.length];
const cell = (t: number, y: number, x: number) => t * 100 + y * 10 + x;

async function writeCube(dir: string, zarrVersion: 2 | 3) {
  await writeDailyStore(
    dir,
    periods,
    grid,
    (t) => Float32Array.from({ length: ny * nx }, (_, n) => cell(t, Math.floor(n / nx), n % nx)),
    { attributes: { title: 'reader test' }, zarrVersion, chunks: [4, 2, 3] },
  );
}

/** The cells of chunk (t, j, i) of shape [4, 2, 3] as the writer stores them: NaN past the array's edges. */
function expectedChunk(t: number, j: number, i: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < 4; k++)
    for (let y = 0; y < 2; y++)
      for (let x = 0; x < 3; x++) {
        const [tt, yy, xx] = [t * 4 + k, j * 2 + y, i * 3 + x];
        out.push(tt < periods.length && yy < ny && xx < nx ? cell(tt, yy, xx) : Number.NaN);
      }
  return out;
}

describe('the Zarr metadata reader and chunk decoder', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-zarr-read-'));
    await Promise.all([writeCube(join(root, 'v2'), 2), writeCube(join(root, 'v3'), 3)]);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it.each([
    [
      2,
      [
        { name: 'bytes', configuration: { endian: 'little' } },
        { name: 'zlib', configuration: { level: 1 } },
      ],
    ],
    [
      3,
      [
        { name: 'bytes', configuration: { endian: 'little' } },
        { name: 'zstd', configuration: { level: 1, checksum: false } },
      ],
    ],
  ] as const)(
    'describes a consolidated Zarr v%i group in v3 terms: arrays, dimensions, codecs, coordinates',
    async (version, codecs) => {
      const store = directoryStore(join(root, `v${version}`));
      const group = (await readZarrGroup(store))!;
      expect(group).toMatchObject({ zarrFormat: version, consolidated: true });
      expect(group.attributes).toMatchObject({ Conventions: 'CF-1.8', title: 'reader test' });
      expect(Object.keys(group.arrays).sort()).toEqual(['lat', 'lon', 'spatial_ref', 'time', 'value']);
      const value = group.arrays.value!;
      expect(value).toMatchObject({
        name: 'value',
        shape: [6, ny, nx],
        chunks: [4, 2, 3],
        dataType: 'float32',
        dimensions: ['time', 'lat', 'lon'],
        codecs,
      });
      expect(value.fillValue).toBeNaN();
      expect(value.attributes).toMatchObject({ units: 'mm', grid_mapping: 'spatial_ref' });
      expect(value.attributes).not.toHaveProperty('_ARRAY_DIMENSIONS');
      expect(value.chunkKey([1, 2, 0])).toBe(version === 2 ? 'value/1.2.0' : 'value/c/1/2/0');
      expect(group.arrays.spatial_ref!.chunkKey([])).toBe(version === 2 ? 'spatial_ref/0' : 'spatial_ref/c');
      expect(group.arrays.time).toMatchObject({
        dataType: 'int64',
        fillValue: version === 2 ? null : 0,
        codecs: [codecs[0]],
      });
      const coordinates = coordinatesOf(group, value);
      expect(Object.keys(coordinates)).toEqual(['time', 'lat', 'lon']);
      expect(coordinates.lat).toBe(group.arrays.lat);
    },
  );

  it.each([2, 3])(
    'decodes Zarr v%i chunks, edge chunks padded with the fill value, and whole coordinates',
    async (version) => {
      const store = directoryStore(join(root, `v${version}`));
      const group = (await readZarrGroup(store))!;
      const value = group.arrays.value!;
      for (const index of [
        [0, 0, 0],
        [1, 2, 1],
      ])
        expect(await readChunk(store, value, index)).toEqual(
          Float32Array.from(expectedChunk(index[0]!, index[1]!, index[2]!)),
        );
      expect(await readVector(store, group.arrays.lat!)).toEqual(grid.lat);
      expect(await readVector(store, group.arrays.time!)).toEqual(
        BigInt64Array.from(periods, (p) => BigInt(p.start.getTime() / 86_400_000)),
      );
    },
  );

  it('reads a missing chunk as undefined, and a coordinate missing one as undefined', async () => {
    const dir = join(root, 'missing');
    await writeCube(dir, 2);
    await unlink(join(dir, 'value', '1.0.0'));
    await unlink(join(dir, 'lat', '0'));
    const store = directoryStore(dir);
    const group = (await readZarrGroup(store))!;
    expect(await readChunk(store, group.arrays.value!, [1, 0, 0])).toBeUndefined();
    expect(await readChunk(store, group.arrays.value!, [9, 9, 9])).toBeUndefined();
    expect(await readVector(store, group.arrays.lat!)).toBeUndefined();
  });

  it('reads groups without consolidated metadata from each array’s own keys', async () => {
    const v2 = join(root, 'v2-plain');
    await writeCube(v2, 2);
    await unlink(join(v2, '.zmetadata'));
    const v3 = join(root, 'v3-plain');
    await writeCube(v3, 3);
    const rootJson = JSON.parse(await readFile(join(v3, 'zarr.json'), 'utf8'));
    delete rootJson.consolidated_metadata;
    await writeFile(join(v3, 'zarr.json'), JSON.stringify(rootJson));
    for (const [dir, version] of [
      [v2, 2],
      [v3, 3],
    ] as const) {
      const store = directoryStore(dir);
      const group = (await readZarrGroup(store))!;
      expect(group).toMatchObject({ zarrFormat: version, consolidated: false, arrays: {} });
      expect(group.attributes).toMatchObject({ title: 'reader test' });
      const consolidated = (await readZarrGroup(directoryStore(join(root, `v${version}`))))!.arrays.value!;
      const value = (await readZarrArray(store, group, 'value'))!;
      expect({ ...value, chunkKey: undefined }).toEqual({ ...consolidated, chunkKey: undefined });
      expect(await readZarrArray(store, group, 'nothing')).toBeUndefined();
    }
  });

  it('finds no group where there is none, and refuses metadata that is not Zarr', async () => {
    expect(await readZarrGroup(directoryStore(join(root, 'nowhere')))).toBeUndefined();
    const dir = join(root, 'broken');
    await writeCube(dir, 3);
    await writeFile(join(dir, 'zarr.json'), '{"zarr_format": 3, "node_type": "array"');
    await expect(readZarrGroup(directoryStore(dir))).rejects.toThrow(ZarrFormatError);
    await writeFile(join(dir, 'zarr.json'), '{"zarr_format": 3, "node_type": "array"}');
    await expect(readZarrGroup(directoryStore(dir))).rejects.toThrow('zarr.json is no v3 group');
  });

  it('describes an array whose codec it cannot decode, and refuses to decode it, naming the codec', async () => {
    const dir = join(root, 'blosc');
    await writeCube(dir, 2);
    const path = join(dir, '.zmetadata');
    const zmetadata = JSON.parse(await readFile(path, 'utf8'));
    zmetadata.metadata['value/.zarray'].compressor = { id: 'bz2', level: 9 };
    await writeFile(path, JSON.stringify(zmetadata));
    const store = directoryStore(dir);
    const value = (await readZarrGroup(store))!.arrays.value!;
    expect(value.codecs[1]).toEqual({ name: 'bz2', configuration: { level: 9 } });
    await expect(readChunk(store, value, [0, 0, 0])).rejects.toThrow('codec bz2 is not supported');
  });

  it('decodes what zarr-python writes (v2 nested keys and gzip; Blosc, big-endian), not only what Stratus writes', async () => {
    const dir = join(root, 'python.zarr');
    await python(
      [
        'import json, sys, numpy as np, zarr, numcodecs',
        'root = zarr.open_group(sys.argv[1], mode="w")',
        'a = root.create_dataset("v", shape=(5, 7), chunks=(2, 3), dtype="<f8", fill_value=-1.0,',
        '    compressor=numcodecs.GZip(level=5), dimension_separator="/")',
        'a[:] = np.arange(35, dtype="<f8").reshape(5, 7)',
        'a.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]',
        'b = root.create_dataset("b", shape=(4, 6), chunks=(4, 6), dtype=">i4", compressor=numcodecs.Blosc(cname="lz4"))',
        'b[:] = np.arange(24, dtype=">i4").reshape(4, 6) - 5',
        'zarr.consolidate_metadata(sys.argv[1])',
        'print(json.dumps(True))',
      ].join('\n'),
      [dir],
    );
    const store = directoryStore(dir);
    const v = (await readZarrGroup(store))!.arrays.v!;
    expect(v).toMatchObject({ dataType: 'float64', fillValue: -1, dimensions: ['y', 'x'], chunks: [2, 3] });
    expect(v.chunkKey([2, 1])).toBe('v/2/1');
    // Chunk (2, 1): row 4 only, columns 3 to 5; the row past the edge is whatever zarr-python pads with.
    expect(((await readChunk(store, v, [2, 1])) as Float64Array).slice(0, 3)).toEqual(Float64Array.from([31, 32, 33]));
    const b = (await readZarrGroup(store))!.arrays.b!;
    expect(b.codecs.map((c) => c.name)).toEqual(['bytes', 'blosc']);
    expect(b.codecs[0]!.configuration).toEqual({ endian: 'big' });
    expect(await readChunk(store, b, [0, 0])).toEqual(Int32Array.from({ length: 24 }, (_, i) => i - 5));
  });
});
