/**
 * A chunk as a store holds it, with everything that turns it into the cube's chunk (decode, clip at the cube's
 * edge, nodata to NaN), as plain data: a worker thread of the process's pool (`core/workers/pool.ts`) decodes it,
 * so that inflating and decoding chunks uses every core and never the main thread. The stored bytes go to the
 * worker by transfer: as they are when they are the chunk's own (`EncodedChunk.owned`), else as a copy of exactly
 * their range (a store's bytes may be a view into a larger buffer or belong to its cache); the decoded chunk comes
 * back by transfer.
 */
import { ZarrFormatError } from '../../stores/zarr/metadata.ts';
import { decodeChunkValues } from '../../stores/zarr/read.ts';
import { processPool, taskRef, WorkerTaskError, type TaskOutput } from '../../workers/pool.ts';
import type { ChunkArray, EncodedChunk } from './cube.ts';

/** The cube's chunk of an encoded one: C order over (t, y, x) of the clipped shape, nodata NaN. */
export async function decodeEncodedChunk(chunk: EncodedChunk): Promise<ChunkArray> {
  const { bytes, decoding, dtype, stored, clipped, nodata } = chunk;
  const [, cy, cx] = stored;
  const [lt, ly, lx] = clipped;
  const cells = lt * ly * lx;
  const out = () => (dtype === 'float32' ? new Float32Array(cells) : new Float64Array(cells));
  if (!bytes) return out().fill(NaN);
  const values = await decodeChunkValues(decoding, bytes, chunk.key, chunk.owned);
  const whole = lt === stored[0] && ly === cy && lx === cx;
  if (whole && nodata === undefined && values instanceof (dtype === 'float32' ? Float32Array : Float64Array))
    return values as ChunkArray;
  // Row by row: the stored chunk has its full shape, the cube's chunk is clipped at the cube's edge.
  const clippedValues = out();
  for (let t = 0; t < lt; t++)
    for (let y = 0; y < ly; y++) {
      const from = (t * cy + y) * cx;
      clippedValues.set(values.subarray(from, from + lx) as ArrayLike<number>, (t * ly + y) * lx);
    }
  if (nodata !== undefined) for (let i = 0; i < cells; i++) if (clippedValues[i] === nodata) clippedValues[i] = NaN;
  // The decoded chunk is this function's own (decodeChunkValues): its memory goes back now, not at the next
  // collection.
  (values.buffer as ArrayBuffer).transfer(0);
  return clippedValues;
}

/** The pool's task: decode, and hand the chunk back by transfer. */
export async function decodeTask(chunk: EncodedChunk): Promise<TaskOutput<ChunkArray>> {
  const values = await decodeEncodedChunk(chunk);
  return { value: values, transfer: [values.buffer as ArrayBuffer] };
}

/** The pool's task that decodes a stored chunk: what map tiles and stored cubes run on worker threads. */
export const DECODE_CHUNK = taskRef<EncodedChunk, ChunkArray>(import.meta.url, 'decodeTask');

/**
 * The error a task raised, as the engine raises it on the main thread: a chunk that does not decode is a
 * ZarrFormatError wherever it was decoded.
 */
export function asEngineError(err: unknown): unknown {
  if (err instanceof WorkerTaskError && err.taskErrorName === 'ZarrFormatError')
    return new ZarrFormatError(err.message);
  return err;
}

/** `chunk` with bytes of its own, and the buffer to transfer to a worker. */
export function forTransfer(chunk: EncodedChunk): { chunk: EncodedChunk; transfer: ArrayBuffer[] } {
  if (!chunk.bytes) return { chunk, transfer: [] };
  if (chunk.owned) return { chunk, transfer: [chunk.bytes.buffer as ArrayBuffer] };
  const bytes = new Uint8Array(chunk.bytes);
  return { chunk: { ...chunk, bytes, owned: true }, transfer: [bytes.buffer] };
}

/** Decodes `chunk` on the process's pool. */
export async function decodeInPool(encoded: EncodedChunk, signal?: AbortSignal): Promise<ChunkArray> {
  // A pool without threads decodes on this one, reading the bytes where they are (decoding copies them).
  const pool = processPool();
  const { chunk, transfer } = pool.size === 0 ? { chunk: encoded, transfer: [] } : forTransfer(encoded);
  try {
    return await pool.run(DECODE_CHUNK, chunk, { transfer, ...(signal ? { signal } : {}) });
  } catch (err) {
    throw asEngineError(err);
  }
}
