/**
 * The processing engine's public surface: parse, validate and run openEO process graphs over
 * lazy chunked data cubes. `docs/processing.md` describes the model, the processes and the errors.
 */
import type { ProcessDescription } from './descriptions/types.ts';
import { builtInRegistry } from './registry.ts';

export { runProcessGraph, validateProcessGraph, type RunOptions } from './engine.ts';
export { ProcessingError, PROCESSING_ERROR_STATUS, isProcessingError, type ProcessingErrorCode } from './errors.ts';
export { DEFAULT_LIMITS, type EngineLimits } from './graph/limits.ts';
export type { UserProcess, UserProcessResolver } from './graph/types.ts';
export type { ProcessDescription, ParameterDescription } from './descriptions/types.ts';
export { DataCube, type CubeSource, type CubeMetadata, type ChunkArray } from './cube/cube.ts';
export type { Dimension, DimensionType } from './cube/dimension.ts';
export { memoryCube } from './cube/memory.ts';
export { materialize, readRegion } from './cube/read.ts';
export type {
  BoundingBox,
  CollectionRequest,
  CollectionResolver,
  EngineServices,
  FeatureCollectionResolver,
  ProcessLog,
  ResultSink,
} from './services.ts';

/** Ids of the processes the engine runs, the list `/processes` serves (each passes all its official vectors). */
export const IMPLEMENTED_PROCESSES: readonly string[] = builtInRegistry().ids();

/** The description of every implemented process, by id, as `/processes` serves them. */
export function processDescriptions(): Map<string, ProcessDescription> {
  const registry = builtInRegistry();
  return new Map(registry.ids().map((id) => [id, registry.get(id)!.description]));
}
