/**
 * Reading a cube's values: a region assembled from the chunks it touches (what sources over other cubes use),
 * and a whole cube (results), refused past the engine's cell limit.
 */
import { ProcessingError } from '../errors.ts';
import { newChunk, type ChunkArray, type DataCube } from './cube.ts';
import { advance, chunkRegion, copyBlock, product } from './grid.ts';

/** The values of the region `start` + `shape` of `cube`, C-ordered; positions outside the cube are NaN. */
export async function readRegion(
  cube: DataCube,
  start: readonly number[],
  shape: readonly number[],
  signal?: AbortSignal,
): Promise<ChunkArray> {
  const { chunkShape, dtype } = cube.metadata;
  const full = cube.shape;
  const out = newChunk(dtype, product(shape));
  const clippedStart = start.map((s) => Math.max(0, s));
  const clippedEnd = start.map((s, i) => Math.min(full[i]!, s + shape[i]!));
  if (clippedStart.some((s, i) => s !== start[i]) || clippedEnd.some((e, i) => e !== start[i]! + shape[i]!))
    out.fill(NaN);
  if (clippedEnd.some((e, i) => e <= clippedStart[i]!)) return out;
  const first = clippedStart.map((s, i) => Math.floor(s / chunkShape[i]!));
  const last = clippedEnd.map((e, i) => Math.floor((e - 1) / chunkShape[i]!));
  const counts = first.map((f, i) => last[i]! - f + 1);
  const index = first.map(() => 0);
  for (;;) {
    signal?.throwIfAborted();
    const chunkIndex = first.map((f, i) => f + index[i]!);
    const region = chunkRegion(full, chunkShape, chunkIndex);
    const chunk = await cube.source.readChunk(chunkIndex, signal);
    const from = region.start.map((s, i) => Math.max(s, clippedStart[i]!));
    const to = region.start.map((s, i) => Math.min(s + region.shape[i]!, clippedEnd[i]!));
    copyBlock(
      chunk,
      region.shape,
      from.map((f, i) => f - region.start[i]!),
      out,
      shape,
      from.map((f, i) => f - start[i]!),
      from.map((f, i) => to[i]! - f),
    );
    if (!advance(index, counts)) break;
  }
  return out;
}

/** Every value of `cube`, C-ordered. Refused with ProcessGraphComplexity past `maxCells`. */
export async function materialize(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<ChunkArray> {
  const cells = cube.cells;
  if (cells > maxCells)
    throw new ProcessingError(
      'ProcessGraphComplexity',
      `The data cube has ${cells} cells, more than the ${maxCells} that may be held in memory at once; use a batch job or a smaller extent.`,
    );
  if (cells === 0) return newChunk(cube.metadata.dtype, 0);
  return readRegion(
    cube,
    cube.shape.map(() => 0),
    cube.shape,
    signal,
  );
}
