import type { Compressor } from './codecs.ts';

export type TypedValues = Float32Array | Float64Array | Int32Array | BigInt64Array;

/** An array as the raster writer declares it, whatever the Zarr format that stores it. */
export interface ArraySpec {
  name: string;
  shape: number[];
  chunks: number[];
  dataType: 'float32' | 'float64' | 'int64';
  /** NaN for data, none for coordinates (which have no missing values). */
  fillValue: number | 'NaN' | null;
  compressor: Compressor | null;
  /** Dimension names: `_ARRAY_DIMENSIONS` in v2, `dimension_names` in v3. */
  dimensions: string[];
  attributes: Record<string, unknown>;
}

/**
 * A Zarr group being written: metadata, chunks, and consolidated metadata last, so that a reader that opens
 * consolidated metadata sees only a complete store. Its keys go to a writable store (store.ts): a directory, one
 * flushed file per key, published by its caller with one rename; or an Icechunk session, which makes them visible
 * only when it commits.
 */
export interface ZarrGroupWriter {
  group(attributes: Record<string, unknown>): Promise<void>;
  /** A child group at `path` (arrays in it are named `path/name`), listed in the consolidated metadata. */
  subgroup(path: string, attributes: Record<string, unknown>): Promise<void>;
  array(spec: ArraySpec): Promise<void>;
  /** One chunk; `values` has the chunk's full shape (edge chunks padded with the fill value). */
  chunk(spec: ArraySpec, index: number[], values: TypedValues): Promise<void>;
  consolidate(): Promise<void>;
}

export const bytesOf = (values: TypedValues) => new Uint8Array(values.buffer, values.byteOffset, values.byteLength);

// Typed arrays use the platform's byte order and both formats store little-endian here.
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1)
  throw new Error('Stratus writes Zarr on little-endian hosts only');
