import { encodeChunk } from './codecs.ts';
import type { WritableStore } from '../store.ts';
import { chunkKeys } from './metadata.ts';
import { bytesOf, type ArraySpec, type TypedValues, type ZarrGroupWriter } from './group-writer.ts';

/**
 * Zarr v3 (https://zarr-specs.readthedocs.io/en/latest/v3/core/index.html): one `zarr.json` per node, chunk keys
 * `c/<i>/<j>/...`, `bytes` (little-endian) then the compressor as codecs. The root `zarr.json` is written last,
 * with the arrays' metadata inline as `consolidated_metadata` (as zarr-python 3 writes it), so that the store
 * exists for a reader only once it is complete.
 */
export class ZarrV3GroupWriter implements ZarrGroupWriter {
  readonly #store: WritableStore;
  /** The metadata of every node below the root, by path. */
  readonly #arrays: Record<string, unknown> = {};
  #attributes: Record<string, unknown> = {};

  constructor(store: WritableStore) {
    this.#store = store;
  }

  async group(attributes: Record<string, unknown>): Promise<void> {
    this.#attributes = attributes;
  }

  async subgroup(path: string, attributes: Record<string, unknown>): Promise<void> {
    const metadata = { zarr_format: 3, node_type: 'group', attributes };
    this.#arrays[path] = metadata;
    await this.#store.set(`${path}/zarr.json`, JSON.stringify(metadata, null, 2));
  }

  async array(spec: ArraySpec): Promise<void> {
    // v3 has no zlib codec (it has gzip and zstd): zlib is a v2 choice.
    if (spec.compressor?.id === 'zlib') throw new Error('Zarr v3 has no zlib codec; use gzip or zstd');
    const compressor = spec.compressor && {
      name: spec.compressor.id,
      configuration:
        spec.compressor.id === 'zstd'
          ? { level: spec.compressor.level, checksum: false }
          : { level: spec.compressor.level },
    };
    const metadata = {
      zarr_format: 3,
      node_type: 'array',
      shape: spec.shape,
      data_type: spec.dataType,
      chunk_grid: { name: 'regular', configuration: { chunk_shape: spec.chunks } },
      chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
      fill_value: spec.fillValue ?? 0,
      codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, ...(compressor ? [compressor] : [])],
      attributes: spec.attributes,
      dimension_names: spec.dimensions,
    };
    this.#arrays[spec.name] = metadata;
    await this.#store.set(`${spec.name}/zarr.json`, JSON.stringify(metadata, null, 2));
  }

  async chunk(spec: ArraySpec, index: number[], values: TypedValues): Promise<void> {
    await this.#store.set(chunkKeys(spec.name, false, '/')(index), await encodeChunk(spec.compressor, bytesOf(values)));
  }

  async consolidate(): Promise<void> {
    await this.#store.set(
      'zarr.json',
      JSON.stringify(
        {
          zarr_format: 3,
          node_type: 'group',
          attributes: this.#attributes,
          consolidated_metadata: { kind: 'inline', must_understand: false, metadata: this.#arrays },
        },
        null,
        2,
      ),
    );
  }
}
