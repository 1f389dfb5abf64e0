import { encodeChunk } from './codecs.ts';
import type { WritableStore } from '../store.ts';
import { chunkKeys } from './metadata.ts';
import { bytesOf, type ArraySpec, type TypedValues, type ZarrGroupWriter } from './group-writer.ts';

const DTYPES = { float32: '<f4', float64: '<f8', int64: '<i8' } as const;

/** Zarr v2 (https://zarr-specs.readthedocs.io/en/latest/v2/v2.0.html) with consolidated `.zmetadata`. */
export class ZarrV2GroupWriter implements ZarrGroupWriter {
  readonly #store: WritableStore;
  readonly #metadata: Record<string, unknown> = {};

  constructor(store: WritableStore) {
    this.#store = store;
  }

  async #json(key: string, value: unknown): Promise<void> {
    this.#metadata[key] = value;
    await this.#store.set(key, JSON.stringify(value, null, 2));
  }

  async group(attributes: Record<string, unknown>): Promise<void> {
    await this.#json('.zgroup', { zarr_format: 2 });
    await this.#json('.zattrs', attributes);
  }

  async subgroup(path: string, attributes: Record<string, unknown>): Promise<void> {
    await this.#json(`${path}/.zgroup`, { zarr_format: 2 });
    await this.#json(`${path}/.zattrs`, attributes);
  }

  async array(spec: ArraySpec): Promise<void> {
    await this.#json(`${spec.name}/.zarray`, {
      zarr_format: 2,
      shape: spec.shape,
      chunks: spec.chunks,
      dtype: DTYPES[spec.dataType],
      compressor: spec.compressor,
      fill_value: spec.fillValue,
      order: 'C',
      filters: null,
      dimension_separator: '.',
    });
    await this.#json(`${spec.name}/.zattrs`, { _ARRAY_DIMENSIONS: spec.dimensions, ...spec.attributes });
  }

  async chunk(spec: ArraySpec, index: number[], values: TypedValues): Promise<void> {
    await this.#store.set(chunkKeys(spec.name, true, '.')(index), await encodeChunk(spec.compressor, bytesOf(values)));
  }

  async consolidate(): Promise<void> {
    await this.#store.set(
      '.zmetadata',
      JSON.stringify({ metadata: this.#metadata, zarr_consolidated_format: 1 }, null, 2),
    );
  }
}
