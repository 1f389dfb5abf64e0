/**
 * The lazy data cube (DESIGN.md §4, docs/adr/0006): dimensions with labels, a storage dtype, the kind of its cell
 * values, and a chunk grid whose chunks a `CubeSource` produces on demand. Nothing is computed when a process
 * builds a cube; values flow only when a consumer reads chunks, one at a time. Nodata is NaN in every chunk, and
 * booleans are 0/1 (`cellType: 'boolean'`). A cube whose dimensions include one of type `geometry` is a vector
 * cube: its `geometries` say which feature each label of that dimension stands for.
 */
import type { MaybeEmptyFeature } from '../values/geojson.ts';
import { VALUE_KIND, type ValueKind } from '../values/kinds.ts';
import { ProcessingError } from '../errors.ts';
import type { Dimension } from './dimension.ts';
import type { ChunkDecoding } from '../../stores/zarr/read.ts';
import { float32InSharedMemory } from '../kernels/wasm/shared-memory.ts';

export type CubeDtype = 'float32' | 'float64';
export type CellType = 'number' | 'boolean';
export type ChunkArray = Float32Array | Float64Array;

export interface CubeMetadata {
  dimensions: readonly Dimension[];
  dtype: CubeDtype;
  cellType: CellType;
  /** Chunk length per dimension (at least 1); the last chunk of a dimension may be shorter. */
  chunkShape: readonly number[];
  /** The features of the geometry dimension of a vector cube, in label order, in the dimension's CRS. */
  geometries?: readonly MaybeEmptyFeature[];
  /**
   * CF units of each band's values, by band label, as the store declares them; read by processes that need units
   * (`core/processing/units.ts`). Processes that keep values as they are keep them; processes that compute new
   * values with a callback drop them (`withoutUnits`), since they cannot know the units of what it computes.
   */
  units?: Readonly<Record<string, string>>;
}

/** `metadata` without its units: for the values a callback computes. */
export function withoutUnits(metadata: CubeMetadata): CubeMetadata {
  const { units: _units, ...rest } = metadata;
  return rest;
}

/**
 * Produces the chunks of a cube: the contract that the collections implement over the Zarr/Icechunk stores, and that
 * every process implements over its inputs. `readChunk` returns the chunk's values in C order over the cube's
 * dimensions, its shape clipped at the cube's edge; the caller owns the returned array.
 */
export interface CubeSource {
  readonly metadata: CubeMetadata;
  readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray>;
  /**
   * The chunk without a copy, for readers that only read it (zonal statistics); a source that holds its chunks
   * (in memory, in a cache) may lend them. The reader must not change or keep the array.
   */
  lendChunk?(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray>;
  /**
   * The chunk as stored, not yet decoded, for readers that decode it on a worker thread (`encoded-chunk.ts`):
   * a source over a store; counts against the run's read budget as `readChunk` does.
   */
  encodedChunk?(index: readonly number[], signal?: AbortSignal): Promise<EncodedChunk>;
}

/** A chunk as a store holds it, and what turns it into the cube's chunk, as plain data (`encoded-chunk.ts`). */
export interface EncodedChunk {
  /** The stored chunk's key, for messages. */
  key: string;
  /** Undefined when the store holds no such chunk: nodata everywhere. */
  bytes: Uint8Array | undefined;
  /**
   * The bytes are this chunk's alone, exactly their buffer (`ReadableStore.freshBytes`): decoding may keep them as
   * its values, and a worker have them by transfer, without a copy.
   */
  owned: boolean;
  decoding: ChunkDecoding;
  dtype: CubeDtype;
  /** Shape of the stored chunk (whole) and of the cube's chunk (clipped at the cube's edge), [t, y, x]. */
  stored: readonly [number, number, number];
  clipped: readonly [number, number, number];
  /** The stored fill value when it is a number other than NaN: it becomes NaN. */
  nodata: number | undefined;
}

export class DataCube {
  readonly source: CubeSource;

  constructor(source: CubeSource) {
    this.source = source;
  }

  get [VALUE_KIND](): ValueKind {
    return this.dimensions.some((d) => d.type === 'geometry') ? 'vector-cube' : 'raster-cube';
  }

  get metadata(): CubeMetadata {
    return this.source.metadata;
  }

  get dimensions(): readonly Dimension[] {
    return this.source.metadata.dimensions;
  }

  get shape(): number[] {
    return this.dimensions.map((d) => d.labels.length);
  }

  /** Number of values; a cube without dimensions (`create_data_cube`) has none. */
  get cells(): number {
    return this.dimensions.length === 0 ? 0 : this.shape.reduce((a, b) => a * b, 1);
  }

  dimension(name: string): Dimension | undefined {
    return this.dimensions.find((d) => d.name === name);
  }
}

export function isCube(value: unknown): value is DataCube {
  return value instanceof DataCube;
}

/**
 * A chunk of zeros; `shared`: in a SharedArrayBuffer, which worker threads read without a copy, float32 ones in
 * a shared WebAssembly memory where they can be, which the kernels of those threads read too.
 */
export function newChunk(dtype: CubeDtype, length: number, shared = false): ChunkArray {
  if (!shared) return dtype === 'float32' ? new Float32Array(length) : new Float64Array(length);
  if (dtype === 'float32') {
    const inMemory = float32InSharedMemory(length);
    if (inMemory) return inMemory;
  }
  const buffer = new SharedArrayBuffer(length * (dtype === 'float32' ? 4 : 8));
  return dtype === 'float32' ? new Float32Array(buffer) : new Float64Array(buffer);
}

/** The x and y axes of a raster cube (DimensionNotAvailable when it has none). */
export function spatialAxes(cube: DataCube): { x: number; y: number } {
  const find = (axis: 'x' | 'y') => {
    const byAxis = cube.dimensions.findIndex((d) => d.type === 'spatial' && d.axis === axis);
    return byAxis >= 0 ? byAxis : cube.dimensions.findIndex((d) => d.type === 'spatial' && d.name === axis);
  };
  const [x, y] = [find('x'), find('y')];
  if (x < 0 || y < 0)
    throw new ProcessingError('DimensionNotAvailable', 'The data cube has no spatial x and y dimensions.');
  return { x, y };
}
