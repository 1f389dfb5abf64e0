/**
 * The zonal statistics of one chunk as a task of the process's worker pool (`core/workers/pool.ts`): decode the
 * chunk when it comes as stored, then read every run of every plane. The chunk and the runs come shared
 * (in-memory cubes hold their chunks in shared memory, float32 ones in a shared WebAssembly memory, which comes
 * along for the SIMD kernel to read them in) or as stored bytes. With a fold plan the worker adds up the
 * runs of the geometries this chunk is the first to reach as it reads them and hands back their result cells and
 * the partials of the other runs (`foldedPartials`); without one, every run's partials (`runPartials`). What goes
 * back goes by transfer, and the caller adds it into the results in chunk order.
 */
import { taskRef, type TaskOutput } from '../../workers/pool.ts';
import type { ChunkArray, EncodedChunk } from '../cube/cube.ts';
import { decodeEncodedChunk } from '../cube/encoded-chunk.ts';
import type { WasmMemory } from '../kernels/wasm/api.ts';
import {
  foldedPartials,
  runPartials,
  type FoldedPartials,
  type FoldPlan,
  type PixelRuns,
  type RunPartials,
  type WeightedKind,
} from './weighted.ts';

export interface ZonalChunkInput {
  chunk: { encoded: EncodedChunk } | { values: ChunkArray; memory?: WasmMemory };
  runs: PixelRuns;
  /** Offset of each plane (time step, band, ...) of the chunk. */
  offsets: Int32Array;
  kind: WeightedKind;
  /** Whether to count valid values too (then without a fold plan: the caller counts every run). */
  finite: boolean;
  fold?: FoldPlan;
}

export type ZonalChunkOutput = { partials: RunPartials } | FoldedPartials;

export async function zonalChunkTask(input: ZonalChunkInput): Promise<TaskOutput<ZonalChunkOutput>> {
  const { chunk, runs, offsets, kind, finite, fold } = input;
  const values = 'encoded' in chunk ? await decodeEncodedChunk(chunk.encoded) : chunk.values;
  const memory = 'memory' in chunk ? chunk.memory : undefined;
  // A chunk this task decoded is its own: its memory goes back as soon as it is read, not at the worker's next
  // collection, which a busy machine can put off until most of a store's chunks are held.
  const release = () => {
    if ('encoded' in chunk) (values.buffer as ArrayBuffer).transfer(0);
  };
  if (fold) {
    const output = foldedPartials(kind, values, runs, offsets, fold, memory);
    release();
    const { local, rest } = output;
    const transfer = [local.acc, local.weight, local.nodata, rest.value, rest.count, rest.missing];
    return { value: output, transfer: transfer.map((array) => array.buffer as ArrayBuffer) };
  }
  const partials = runPartials(kind, values, runs, offsets, finite, memory);
  release();
  const { value, count, missing } = partials;
  const transfer = [value.buffer, count.buffer, missing.buffer, ...(partials.finite ? [partials.finite.buffer] : [])];
  return { value: { partials }, transfer: transfer as ArrayBuffer[] };
}

export const ZONAL_CHUNK = taskRef<ZonalChunkInput, ZonalChunkOutput>(import.meta.url, 'zonalChunkTask');
