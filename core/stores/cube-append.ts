import { link, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import h5wasm from 'h5wasm/node';
import { openCubeSink, type CubeSink, type StoreFormat } from './cube-sink.ts';
import { NETCDF_FILE } from './layout.ts';
import { RasterCubeWriter, type RasterCubeDescription } from './raster-cube.ts';
import { decodeChunk, type Compressor } from './zarr/codecs.ts';
import { directoryKeyReader, type KeyReader, type KeyWriter } from './zarr/group-writer.ts';

/** How the previous version stores the data variable. */
export interface StoredArray {
  shape: [number, number, number];
  chunks: [number, number, number];
  compressor: Compressor | null;
  /** The file of chunk (t, j, i), relative to the store root. */
  key: (t: number, j: number, i: number) => string;
}

const json = async (keys: KeyReader, key: string) => JSON.parse(Buffer.from(await keys(key)).toString('utf8'));

async function storedArrayV2(keys: KeyReader, variable: string): Promise<StoredArray> {
  const { metadata } = (await json(keys, '.zmetadata')) as {
    metadata: Record<string, { shape: number[]; chunks: number[]; compressor: Compressor | null }>;
  };
  const array = metadata[`${variable}/.zarray`];
  if (!array) throw new Error(`the previous version has no ${variable} array`);
  return {
    shape: array.shape as StoredArray['shape'],
    chunks: array.chunks as StoredArray['chunks'],
    compressor: array.compressor,
    key: (t, j, i) => `${variable}/${t}.${j}.${i}`,
  };
}

async function storedArrayV3(keys: KeyReader, variable: string): Promise<StoredArray> {
  const root = (await json(keys, 'zarr.json')) as {
    consolidated_metadata?: { metadata: Record<string, Record<string, unknown>> };
  };
  const array = root.consolidated_metadata?.metadata[variable] as
    | {
        shape: number[];
        chunk_grid: { configuration: { chunk_shape: number[] } };
        codecs: { name: string; configuration?: { level?: number } }[];
      }
    | undefined;
  if (!array) throw new Error(`the previous version has no ${variable} array`);
  const codec = array.codecs.find((c) => c.name !== 'bytes');
  if (codec && codec.name !== 'zstd' && codec.name !== 'gzip') throw new Error(`unsupported codec ${codec.name}`);
  return {
    shape: array.shape as StoredArray['shape'],
    chunks: array.chunk_grid.configuration.chunk_shape as StoredArray['chunks'],
    compressor: codec ? { id: codec.name as 'zstd' | 'gzip', level: codec.configuration?.level ?? 1 } : null,
    key: (t, j, i) => `${variable}/c/${t}/${j}/${i}`,
  };
}

/** Where an append of a Zarr array starts: what is stored, and the planes of its partly filled last block. */
export interface AppendStart {
  stored: StoredArray;
  /** Periods held as complete time blocks, which the append keeps as they are; a multiple of the time chunk. */
  firstPeriod: number;
  /** The periods after them, decoded plane by plane, to be fed to the writer again. */
  partial: Float32Array[];
}

/** Reads how the previous version stores `variable` and decodes the partly filled block, if any. */
export async function appendStart(keys: KeyReader, zarrVersion: 2 | 3, variable: string): Promise<AppendStart> {
  const stored = await (zarrVersion === 3 ? storedArrayV3 : storedArrayV2)(keys, variable);
  const [count, ny, nx] = stored.shape;
  const [ct, cy, cx] = stored.chunks;
  const firstPeriod = Math.floor(count / ct) * ct;
  const [rows, cols] = [Math.ceil(ny / cy), Math.ceil(nx / cx)];
  const partial = Array.from({ length: count - firstPeriod }, () => new Float32Array(ny * nx));
  if (partial.length > 0)
    for (let j = 0; j < rows; j++)
      for (let i = 0; i < cols; i++) {
        const bytes = await decodeChunk(stored.compressor, await keys(stored.key(firstPeriod / ct, j, i)));
        const chunk = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
        for (let k = 0; k < partial.length; k++)
          for (let y = 0; y < cy && j * cy + y < ny; y++) {
            const width = Math.min(cx, nx - i * cx);
            const from = (k * cy + y) * cx;
            partial[k]!.set(chunk.subarray(from, from + width), (j * cy + y) * nx + i * cx);
          }
      }
  return { stored, firstPeriod, partial };
}

/**
 * Opens a cube writer that continues `start`: chunk shape and codec of the stored array, writing from the first
 * period after its complete blocks, with the partly filled block fed again. The caller makes the complete
 * blocks present under the writer's keys (hard links, or a branch of the same snapshot).
 */
export async function continueCube(
  target: string | KeyWriter,
  start: AppendStart,
  zarrVersion: 2 | 3,
  description: RasterCubeDescription,
): Promise<RasterCubeWriter> {
  const writer = await RasterCubeWriter.create(target, {
    ...description,
    zarrVersion,
    chunks: start.stored.chunks,
    compressor: start.stored.compressor,
    firstPeriod: start.firstPeriod,
  });
  for (const plane of start.partial) await writer.append(plane);
  return writer;
}

/**
 * A Zarr append: complete time blocks of the previous version are hard-linked (never rewritten: the writer only
 * writes blocks after them, as new files), the partly filled last block is decoded and fed again, and the
 * coordinates and metadata are written anew. Readers of the previous version see its files unchanged.
 */
async function zarrAppendSink(
  staging: string,
  previous: string,
  zarrVersion: 2 | 3,
  description: RasterCubeDescription,
): Promise<CubeSink> {
  const start = await appendStart(directoryKeyReader(previous), zarrVersion, description.variable);
  const [, ny, nx] = start.stored.shape;
  const [ct, cy, cx] = start.stored.chunks;
  const [rows, cols] = [Math.ceil(ny / cy), Math.ceil(nx / cx)];
  for (let t = 0; t < start.firstPeriod / ct; t++)
    for (let j = 0; j < rows; j++)
      for (let i = 0; i < cols; i++) {
        const key = start.stored.key(t, j, i);
        await mkdir(dirname(join(staging, key)), { recursive: true });
        await link(join(previous, key), join(staging, key));
      }
  return continueCube(staging, start, zarrVersion, description);
}

/** The planes of a NetCDF-4 version, which is rewritten whole with the new periods after them. */
async function netcdfPlanes(previous: string, variable: string): Promise<Float32Array[]> {
  await h5wasm.ready;
  const file = new h5wasm.File(join(previous, NETCDF_FILE), 'r');
  try {
    const data = file.get(variable);
    if (!(data instanceof h5wasm.Dataset)) throw new Error(`the previous version has no ${variable} variable`);
    const [nt, ny, nx] = data.shape as [number, number, number];
    const values = data.value as Float32Array;
    return Array.from({ length: nt }, (_, t) => values.slice(t * ny * nx, (t + 1) * ny * nx));
  } finally {
    file.close();
  }
}

/**
 * Opens a sink in `staging` that already holds the periods of the version in `previous` (the first
 * `previousCount` of `description.periods`, on the same grid), so that only the new periods are appended.
 */
export async function openAppendSink(
  staging: string,
  previous: string,
  format: StoreFormat,
  description: RasterCubeDescription,
): Promise<CubeSink> {
  if (format.format === 'zarr') return zarrAppendSink(staging, previous, format.zarrVersion === 3 ? 3 : 2, description);
  if (format.format !== 'netcdf') throw new Error(`appending to a ${format.format} store is not supported`);
  const sink = await openCubeSink(staging, format, description);
  for (const plane of await netcdfPlanes(previous, description.variable)) await sink.append(plane);
  return sink;
}
