/**
 * One synchronous run (`POST /result`) as its worker thread executes it (`worker.ts`): the graph over the resources
 * the main thread pinned for it, read from the stores under the storage root, bounded by `processing.sync.*`, and
 * its answer encoded into bytes the thread hands back without a copy. Plain data in, plain data out: the thread
 * needs no cluster connection and shares nothing with the server's main thread.
 */
import type { KubeObject } from '../../cluster/objects.ts';
import { datasetCollections } from '../collections/datasets.ts';
import { storedFeatureCollections } from '../collections/feature-collections.ts';
import { readBudget } from '../collections/read-budget.ts';
import { isCube } from '../cube/cube.ts';
import { runProcessGraph } from '../engine.ts';
import { ProcessingError } from '../errors.ts';
import { pinnedResources } from '../jobs/pinned.ts';
import { MemoryBudget } from '../memory-budget.ts';
import { formatOptions } from '../jobs/display.ts';
import { OUTPUT_FORMATS, outputFormat, type OutputFormat } from '../results/outputs.ts';
import type { ResultSink } from '../services.ts';
import { storedWorkflows } from '../workflows.ts';
import { spansItsBuffer } from '../../buffers.ts';

export interface SyncLimits {
  /** `processing.sync.max_cells`: cells held whole or answered. */
  maxCells: number;
  /** `processing.sync.max_read_cells`: cells read from the stores, across the graph. */
  maxReadCells: number;
  /** `processing.sync.max_output_size`: bytes of the answer. */
  maxOutputBytes: number;
  /** `processing.sync.max_memory`: bytes of arrays and materialized cubes the run holds at once. */
  maxMemoryBytes: number;
}

export interface SyncRunInput {
  processGraph: unknown;
  namespace: string;
  storageRoot: string;
  /** What the graph refers to, as the main thread found it (`jobs/resolve.ts`). */
  resources: KubeObject[];
  limits: SyncLimits;
}

/** The encoded answer: its bytes own their whole buffer, so that it can be transferred. */
export interface SyncAnswer {
  body: Uint8Array<ArrayBuffer>;
  /** With `charset=utf-8` for text that does not name its charset. */
  mediaType: string;
  fileName: string;
}

interface Saved {
  value: unknown;
  format: OutputFormat;
  options: Record<string, unknown>;
}

/** A sink that keeps what `save_result` was given: the answer is written once the graph ran. */
function answerSink(): ResultSink & { saved?: Saved } {
  const sink: ResultSink & { saved?: Saved } = {
    formats: () => OUTPUT_FORMATS.map((f) => f.name),
    save: async (value, name, options) => {
      sink.saved = { value, format: outputFormat(name)!, options };
      return true;
    },
  };
  return sink;
}

const BYTES_PER_CELL = { float32: 4, float64: 8 } as const;

/** Bytes that own their buffer exactly, copied only when they are a view into a larger or shared one. */
function ownBytes(body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return spansItsBuffer(bytes) ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

export async function runSynchronously(input: SyncRunInput): Promise<SyncAnswer> {
  const { processGraph, namespace, storageRoot, limits } = input;
  const cluster = pinnedResources(input.resources);
  const stores = { cluster, namespace, storageRoot };
  const memory = new MemoryBudget(limits.maxMemoryBytes, 'processing.sync.max_memory');
  const results = answerSink();
  const value = await runProcessGraph(processGraph, {
    // A budget per run: the cells read by every load_collection of the graph count together.
    services: {
      collections: datasetCollections({ ...stores, budget: readBudget(limits.maxReadCells) }),
      features: storedFeatureCollections(stores),
      results,
    },
    userProcesses: storedWorkflows(cluster, namespace),
    limits: { maxCubeCells: limits.maxCells },
    memory,
  });
  const { value: saved, format, options } = results.saved ?? { value, format: outputFormat('JSON')!, options: {} };
  // The writers hold a cube whole while they encode it.
  if (isCube(saved)) memory.charge(saved.cells * BYTES_PER_CELL[saved.metadata.dtype], 'The result cube');
  const optionsFor = formatOptions(processGraph, cluster, namespace);
  const written = await format.write(saved, limits.maxCells, undefined, await optionsFor(format.name, options));
  const body = ownBytes(written);
  if (body.byteLength > limits.maxOutputBytes)
    throw new ProcessingError(
      'ProcessGraphComplexity',
      `The result takes ${body.byteLength} bytes, more than the ${limits.maxOutputBytes} a synchronous run may answer (processing.sync.max_output_size); run it as a batch job (POST /jobs).`,
    );
  // Text was encoded as UTF-8 here, and says so as it did when the server sent the string itself.
  const text = typeof written === 'string' && !/charset=/i.test(format.mediaType);
  const mediaType = text ? `${format.mediaType}; charset=utf-8` : format.mediaType;
  return { body, mediaType, fileName: format.fileName };
}
