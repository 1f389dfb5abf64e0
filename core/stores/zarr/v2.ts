import { join } from 'node:path';
import { writeDurable } from '../files.ts';
import { encodeChunk, type Compressor } from './codecs.ts';

/** Zarr v2 array metadata (`.zarray`), https://zarr-specs.readthedocs.io/en/latest/v2/v2.0.html */
export interface ZarrV2Array {
  zarr_format: 2;
  shape: number[];
  chunks: number[];
  dtype: '<f4' | '<f8' | '<i4' | '<i8';
  compressor: Compressor | null;
  fill_value: number | 'NaN' | null;
  order: 'C';
  filters: null;
  dimension_separator: '.';
}

export type TypedValues = Float32Array | Float64Array | Int32Array | BigInt64Array;

/** One array to declare: its metadata, attributes (with `_ARRAY_DIMENSIONS`), and values when written at once. */
export interface ArrayDeclaration {
  name: string;
  meta: ZarrV2Array;
  attrs: Record<string, unknown>;
}

/**
 * Writes a Zarr v2 group: group and array metadata, chunks, and consolidated metadata (`.zmetadata`) last, so
 * a reader that opens consolidated metadata sees only a complete store. Every file is flushed as written; the
 * caller publishes the directory with one rename.
 */
export class ZarrV2GroupWriter {
  readonly #dir: string;
  readonly #metadata: Record<string, unknown> = {};

  constructor(dir: string) {
    this.#dir = dir;
  }

  async #json(key: string, value: unknown): Promise<void> {
    this.#metadata[key] = value;
    await writeDurable(join(this.#dir, key), JSON.stringify(value, null, 2));
  }

  async group(attrs: Record<string, unknown>): Promise<void> {
    await this.#json('.zgroup', { zarr_format: 2 });
    await this.#json('.zattrs', attrs);
  }

  async array(declaration: ArrayDeclaration): Promise<void> {
    await this.#json(`${declaration.name}/.zarray`, declaration.meta);
    await this.#json(`${declaration.name}/.zattrs`, declaration.attrs);
  }

  /** Writes one chunk; `values` already has the chunk's full shape (edge chunks padded with the fill value). */
  async chunk(declaration: ArrayDeclaration, index: number[], values: TypedValues): Promise<void> {
    const key = index.length === 0 ? '0' : index.join('.');
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    await writeDurable(join(this.#dir, declaration.name, key), await encodeChunk(declaration.meta.compressor, bytes));
  }

  /** Declares a small array and writes it as a single chunk. */
  async wholeArray(declaration: ArrayDeclaration, values: TypedValues): Promise<void> {
    await this.array(declaration);
    await this.chunk(
      declaration,
      declaration.meta.shape.map(() => 0),
      values,
    );
  }

  async consolidate(): Promise<void> {
    await writeDurable(
      join(this.#dir, '.zmetadata'),
      JSON.stringify({ metadata: this.#metadata, zarr_consolidated_format: 1 }, null, 2),
    );
  }
}

/** Little-endian check: typed arrays use the platform order, Zarr `<` means little-endian. */
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1)
  throw new Error('Stratus writes Zarr on little-endian hosts only');
