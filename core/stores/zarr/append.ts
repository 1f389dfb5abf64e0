import { RasterCubeWriter, type RasterCubeDescription } from '../raster-cube.ts';
import type { CubeSink, ReadableStore, Splice, WritableStore } from '../store.ts';
import { readZarrArray, readZarrGroup, type ZarrArray } from './metadata.ts';
import { compressorOf, readChunk } from './read.ts';

/**
 * A new version spliced from the previous one and fetched periods (an append, or a range inside or overlapping the
 * stored one). Shared by the Zarr directory versions (`version.ts`) and Icechunk versions
 * (`../icechunk/version.ts`): only the time blocks the fetched periods touch (every block, when the new version
 * starts earlier than the previous one and the blocks no longer line up) are written; the caller makes the other
 * blocks present under the same keys (hard links, or the same snapshot's chunks).
 */

/** Reads how the previous version in `store` stores `variable` (Zarr v`zarrVersion`, the format the splice writes). */
async function storedArray(store: ReadableStore, zarrVersion: 2 | 3, variable: string): Promise<ZarrArray> {
  const group = await readZarrGroup(store);
  if (group?.zarrFormat !== zarrVersion)
    throw new Error(
      `the previous version is ${group ? `Zarr v${group.zarrFormat}` : 'no Zarr store'}, not Zarr v${zarrVersion}`,
    );
  const stored = await readZarrArray(store, group, variable);
  if (!stored || stored.shape.length !== 3 || stored.dataType !== 'float32')
    throw new Error(`the previous version has no float32 (time, lat, lon) array ${variable}`);
  return stored;
}

/** The previous version's multiscale level arrays (`1/<variable>`, `2/<variable>`, ...), none when it has none. */
async function storedLevels(store: ReadableStore, variable: string): Promise<ZarrArray[]> {
  const group = await readZarrGroup(store);
  const levels: ZarrArray[] = [];
  for (let level = 1; group; level++) {
    const array = await readZarrArray(store, group, `${level}/${variable}`);
    if (!array) break;
    levels.push(array);
  }
  return levels;
}

/** Decodes the planes of time block `t` of `stored`, one per period it holds. */
async function readBlock(store: ReadableStore, stored: ZarrArray, t: number): Promise<Float32Array[]> {
  const [count, ny, nx] = stored.shape as [number, number, number];
  const [ct, cy, cx] = stored.chunks as [number, number, number];
  const planes = Array.from({ length: Math.min(ct, count - t * ct) }, () => new Float32Array(ny * nx));
  for (let j = 0; j * cy < ny; j++)
    for (let i = 0; i * cx < nx; i++) {
      // Stratus writes every chunk of a block; a missing one is a damaged version, not fill values.
      const chunk = await readChunk(store, stored, [t, j, i]);
      if (!chunk) throw new Error(`the previous version has no chunk ${stored.chunkKey([t, j, i])}`);
      for (let k = 0; k < planes.length; k++)
        for (let y = 0; y < cy && j * cy + y < ny; y++) {
          const width = Math.min(cx, nx - i * cx);
          const from = (k * cy + y) * cx;
          planes[k]!.set((chunk as Float32Array).subarray(from, from + width), (j * cy + y) * nx + i * cx);
        }
    }
  return planes;
}

/** The splice of an append: the previous version's periods first, the fetched ones after them. */
export function appendSplice(previousPeriods: number, periods: number): Splice {
  return { offset: 0, from: previousPeriods, to: periods };
}

/** The time blocks [first, last) that a splice rewrites, in blocks of `timeChunk` periods of the new version. */
export function rewrittenBlocks(splice: Splice, periods: number, timeChunk: number): { first: number; last: number } {
  if (splice.offset !== 0) return { first: 0, last: Math.ceil(periods / timeChunk) };
  return { first: Math.floor(splice.from / timeChunk), last: Math.ceil(splice.to / timeChunk) };
}

/**
 * A cube sink writing a splice; `pendingPeriods` is 0 right after a block was handed to the store, and its chunks
 * are in the store once `written()` resolves.
 */
export interface SpliceSink extends CubeSink {
  readonly pendingPeriods: number;
  readonly appendedPeriods: number;
  written(): Promise<void>;
  /** The previous version's time blocks the new version keeps as they are (same index in both). */
  readonly keptBlocks: number[];
  /** The previous version's data array, whose chunk keys the kept blocks have. */
  readonly stored: ZarrArray;
  /** The previous version's multiscale levels, whose kept blocks the new version keeps too. */
  readonly storedLevels: ZarrArray[];
  /** The new version's cube as written: its periods with the previous version's chunk shape and codec. */
  readonly layout: RasterCubeDescription;
}

/**
 * Opens the writer of a splice into `target`: chunk shape and codec of the previous version's array (in
 * `previous`), periods of `description`. Its `append` takes the fetched periods in order; the previous version's
 * periods of the rewritten blocks are decoded and fed around them. `finish` writes the metadata of the whole cube.
 */
export async function spliceCube(
  target: string | WritableStore,
  previous: ReadableStore,
  zarrVersion: 2 | 3,
  description: RasterCubeDescription,
  splice?: Splice,
): Promise<SpliceSink> {
  const stored = await storedArray(previous, zarrVersion, description.variable);
  const levels = await storedLevels(previous, description.variable);
  const [count] = stored.shape as [number];
  const [ct] = stored.chunks as [number];
  const total = description.periods.length;
  const { offset, from, to } = splice ?? appendSplice(count, total);
  // The fetched and the stored periods together must be exactly the new version's, with no gap between them.
  const covered = Math.min(from, offset) === 0 && Math.max(to, offset + count) === total;
  if (from < 0 || from >= to || offset < 0 || !covered || from > offset + count || to < offset)
    throw new Error(`fetched periods ${from} to ${to} and ${count} stored from ${offset} are no union of ${total}`);
  const blocks = rewrittenBlocks({ offset, from, to }, total, ct);
  const window = { from: blocks.first * ct, to: Math.min(blocks.last * ct, total) };
  const whole: RasterCubeDescription = {
    ...description,
    zarrVersion,
    chunks: stored.chunks as [number, number, number],
    compressor: compressorOf(stored),
    multiscales: levels.length > 0,
  };
  const writer = RasterCubeWriter.part(target, whole, window);
  const keptBlocks =
    offset === 0
      ? Array.from({ length: Math.ceil(count / ct) }, (_, t) => t).filter((t) => t < blocks.first || t >= blocks.last)
      : [];

  let cached: { t: number; planes: Float32Array[] } | undefined;
  async function previousPlane(index: number): Promise<Float32Array> {
    const t = Math.floor((index - offset) / ct);
    if (cached?.t !== t) cached = { t, planes: await readBlock(previous, stored, t) };
    return cached.planes[(index - offset) % ct]!;
  }
  /** Feeds the previous version's periods of the rewritten blocks up to `end` (exclusive). */
  let next = window.from;
  async function feedPrevious(end: number): Promise<void> {
    for (; next < end; next++) await writer.append(await previousPlane(next));
  }

  return {
    get pendingPeriods() {
      return writer.pendingPeriods;
    },
    get appendedPeriods() {
      return writer.appendedPeriods;
    },
    written: () => writer.written(),
    settled: () => writer.settled(),
    keptBlocks,
    stored,
    storedLevels: levels,
    layout: whole,
    append: async (values) => {
      await feedPrevious(from);
      if (next >= to) throw new Error('more periods appended than fetched');
      await writer.append(values);
      next++;
    },
    finish: async () => {
      if (next !== to) throw new Error(`${to - from} periods fetched but ${next - from} appended`);
      await feedPrevious(window.to);
      await writer.finish();
      return RasterCubeWriter.completeParts(target, whole);
    },
  };
}
