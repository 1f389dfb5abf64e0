import { link, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import h5wasm from 'h5wasm/node';
import { openCubeSink, type CubeSink, type StoreFormat } from './cube-sink.ts';
import { NETCDF_FILE } from './layout.ts';
import { RasterCubeWriter, type RasterCubeDescription } from './raster-cube.ts';
import { decodeChunk, type Compressor } from './zarr/codecs.ts';

/** How the previous version stores the data variable. */
interface StoredArray {
  shape: [number, number, number];
  chunks: [number, number, number];
  compressor: Compressor | null;
  /** The file of chunk (t, j, i), relative to the store root. */
  key: (t: number, j: number, i: number) => string;
}

async function storedArrayV2(dir: string, variable: string): Promise<StoredArray> {
  const { metadata } = JSON.parse(await readFile(join(dir, '.zmetadata'), 'utf8')) as {
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

async function storedArrayV3(dir: string, variable: string): Promise<StoredArray> {
  const root = JSON.parse(await readFile(join(dir, 'zarr.json'), 'utf8')) as {
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
  const stored = await (zarrVersion === 3 ? storedArrayV3 : storedArrayV2)(previous, description.variable);
  const [count, ny, nx] = stored.shape;
  const [ct, cy, cx] = stored.chunks;
  const firstPeriod = Math.floor(count / ct) * ct;
  const [rows, cols] = [Math.ceil(ny / cy), Math.ceil(nx / cx)];
  for (let t = 0; t < firstPeriod / ct; t++)
    for (let j = 0; j < rows; j++)
      for (let i = 0; i < cols; i++) {
        const key = stored.key(t, j, i);
        await mkdir(dirname(join(staging, key)), { recursive: true });
        await link(join(previous, key), join(staging, key));
      }
  const writer = await RasterCubeWriter.create(staging, {
    ...description,
    zarrVersion,
    chunks: stored.chunks,
    compressor: stored.compressor,
    firstPeriod,
  });
  // The periods of the partly filled block, rebuilt plane by plane from its chunks.
  const partial = count - firstPeriod;
  if (partial > 0) {
    const planes = Array.from({ length: partial }, () => new Float32Array(ny * nx));
    for (let j = 0; j < rows; j++)
      for (let i = 0; i < cols; i++) {
        const bytes = await decodeChunk(
          stored.compressor,
          await readFile(join(previous, stored.key(firstPeriod / ct, j, i))),
        );
        const chunk = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
        for (let k = 0; k < partial; k++)
          for (let y = 0; y < cy && j * cy + y < ny; y++) {
            const width = Math.min(cx, nx - i * cx);
            const from = (k * cy + y) * cx;
            planes[k]!.set(chunk.subarray(from, from + width), (j * cy + y) * nx + i * cx);
          }
      }
    for (const plane of planes) await writer.append(plane);
  }
  return writer;
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
