import { RasterCubeWriter, type RasterCubeDescription } from '../raster-cube.ts';
import type { ReadableStore, WritableStore } from '../store.ts';
import type { Compressor } from './codecs.ts';
import { readZarrArray, readZarrGroup, type ZarrArray } from './metadata.ts';
import { compressorOf, readChunk } from './read.ts';

/**
 * Where an append of a Zarr array starts: what is stored, and the planes of its partly filled last block. Shared by
 * the Zarr directory versions (`version.ts`) and Icechunk versions (`../icechunk/version.ts`).
 */
export interface AppendStart {
  /** The data variable as the previous version stores it (time, lat, lon). */
  stored: ZarrArray;
  compressor: Compressor | null;
  /** Periods held as complete time blocks, which the append keeps as they are; a multiple of the time chunk. */
  firstPeriod: number;
  /** The periods after them, decoded plane by plane, to be fed to the writer again. */
  partial: Float32Array[];
}

/**
 * Reads how the previous version in `store` stores `variable` (it must be Zarr v`zarrVersion`, the format the append
 * writes) and decodes the partly filled block, if any.
 */
export async function appendStart(store: ReadableStore, zarrVersion: 2 | 3, variable: string): Promise<AppendStart> {
  const group = await readZarrGroup(store);
  if (group?.zarrFormat !== zarrVersion)
    throw new Error(
      `the previous version is ${group ? `Zarr v${group.zarrFormat}` : 'no Zarr store'}, not Zarr v${zarrVersion}`,
    );
  const stored = await readZarrArray(store, group, variable);
  if (!stored || stored.shape.length !== 3 || stored.dataType !== 'float32')
    throw new Error(`the previous version has no float32 (time, lat, lon) array ${variable}`);
  const [count, ny, nx] = stored.shape as [number, number, number];
  const [ct, cy, cx] = stored.chunks as [number, number, number];
  const firstPeriod = Math.floor(count / ct) * ct;
  const [rows, cols] = [Math.ceil(ny / cy), Math.ceil(nx / cx)];
  const partial = Array.from({ length: count - firstPeriod }, () => new Float32Array(ny * nx));
  if (partial.length > 0)
    for (let j = 0; j < rows; j++)
      for (let i = 0; i < cols; i++) {
        const index = [firstPeriod / ct, j, i];
        // Stratus writes every chunk of a block; a missing one is a damaged version, not fill values.
        const chunk = await readChunk(store, stored, index);
        if (!chunk) throw new Error(`the previous version has no chunk ${stored.chunkKey(index)}`);
        for (let k = 0; k < partial.length; k++)
          for (let y = 0; y < cy && j * cy + y < ny; y++) {
            const width = Math.min(cx, nx - i * cx);
            const from = (k * cy + y) * cx;
            partial[k]!.set((chunk as Float32Array).subarray(from, from + width), (j * cy + y) * nx + i * cx);
          }
      }
  return { stored, compressor: compressorOf(stored), firstPeriod, partial };
}

/**
 * Opens a cube writer that continues `start`: chunk shape and codec of the stored array, writing from the first
 * period after its complete blocks, with the partly filled block fed again. The caller makes the complete
 * blocks present under the writer's keys (hard links, or a branch of the same snapshot).
 */
export async function continueCube(
  target: string | WritableStore,
  start: AppendStart,
  zarrVersion: 2 | 3,
  description: RasterCubeDescription,
): Promise<RasterCubeWriter> {
  const writer = await RasterCubeWriter.create(target, {
    ...description,
    zarrVersion,
    chunks: start.stored.chunks as [number, number, number],
    compressor: start.compressor,
    firstPeriod: start.firstPeriod,
  });
  for (const plane of start.partial) await writer.append(plane);
  return writer;
}
