/**
 * The zonal statistics of one chunk as a task of the process's worker pool (`core/workers/pool.ts`): decode the
 * chunk when it comes as stored, then read every run of every plane (`runPartials`). The chunk and the runs come
 * shared (in-memory cubes hold their chunks in shared memory) or as stored bytes; the partials go back by
 * transfer, and the caller adds them into the results in chunk order.
 */
import { taskRef, type TaskOutput } from '../../workers/pool.ts';
import type { ChunkArray, EncodedChunk } from '../cube/cube.ts';
import { decodeEncodedChunk } from '../cube/encoded-chunk.ts';
import { runPartials, type PixelRuns, type RunPartials, type WeightedKind } from './weighted.ts';

export interface ZonalChunkInput {
  chunk: { encoded: EncodedChunk } | { values: ChunkArray };
  runs: PixelRuns;
  /** Offset of each plane (time step, band, ...) of the chunk. */
  offsets: Int32Array;
  kind: WeightedKind;
  /** Whether to count valid values too. */
  finite: boolean;
}

export async function zonalChunkTask(input: ZonalChunkInput): Promise<TaskOutput<RunPartials>> {
  const { chunk, runs, offsets, kind, finite } = input;
  const values = 'encoded' in chunk ? await decodeEncodedChunk(chunk.encoded) : chunk.values;
  const partials = runPartials(kind, values, runs, offsets, finite);
  // A chunk this task decoded is its own: its memory goes back now, not at the worker's next collection, which
  // a busy machine can put off until most of a store's chunks are held.
  if ('encoded' in chunk) (values.buffer as ArrayBuffer).transfer(0);
  const { value, count, missing } = partials;
  const transfer = [value.buffer, count.buffer, missing.buffer, ...(partials.finite ? [partials.finite.buffer] : [])];
  return { value: partials, transfer: transfer as ArrayBuffer[] };
}

export const ZONAL_CHUNK = taskRef<ZonalChunkInput, RunPartials>(import.meta.url, 'zonalChunkTask');
