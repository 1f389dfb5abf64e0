import type { ReadableStore } from '../stores/store.ts';
import { readZarrGroup, ZarrFormatError, type ZarrArray, type ZarrGroup } from '../stores/zarr/metadata.ts';
import { readChunk, type ChunkValues } from '../stores/zarr/read.ts';
import { RunError } from '../runs/errors.ts';
import { httpGet, type HttpGetOptions } from './http.ts';

/** A Zarr array of a remote group, as the one metadata reader describes it (core/stores/zarr/metadata.ts). */
export type RemoteArray = ZarrArray;

/** The keys of a remote store over HTTP, with the providers' retry policy; a key the server does not have is missing. */
function httpStore(base: string, http: HttpGetOptions): ReadableStore {
  return {
    get: async (key) => {
      try {
        return (await httpGet(`${base}/${key}`, http)).bytes;
      } catch (err) {
        if (err instanceof RunError && err.code === 'PeriodUnavailable') return undefined;
        throw err;
      }
    },
  };
}

/** What the reader refuses in a remote store is a layout this provider cannot use. */
function unsupportedLayout(err: unknown): never {
  if (err instanceof ZarrFormatError) throw new RunError('UnsupportedLayout', err.message);
  throw err;
}

/**
 * A remote Zarr group read over HTTP with consolidated metadata, one chunk per request, decoded chunks kept in a
 * least-recently-used cache bounded by bytes: time-chunked stores answer many periods from one chunk. Metadata and
 * chunks are read and decoded by the stores' reader; this adds the cache and reads of boxes across chunks.
 */
export class RemoteZarrGroup {
  readonly #store: ReadableStore;
  readonly #group: ZarrGroup;
  readonly #chunks = new Map<string, { bytes: number; value: Promise<(i: number) => number> }>();
  readonly #cacheBytes: number;

  private constructor(store: ReadableStore, group: ZarrGroup, cacheBytes: number) {
    [this.#store, this.#group, this.#cacheBytes] = [store, group, cacheBytes];
  }

  static async open(url: string, http: HttpGetOptions, cacheBytes = 512 << 20): Promise<RemoteZarrGroup> {
    const base = url.replace(/\/+$/, '');
    const store = httpStore(base, http);
    const group = await readZarrGroup(store).catch(unsupportedLayout);
    if (!group) throw new RunError('PeriodUnavailable', `${base} holds no Zarr group`);
    if (!group.consolidated) throw new RunError('UnsupportedLayout', `${base} has no consolidated metadata`);
    return new RemoteZarrGroup(store, group, cacheBytes);
  }

  has(name: string): boolean {
    return name in this.#group.arrays;
  }

  array(name: string): RemoteArray {
    const array = this.#group.arrays[name];
    if (!array) throw new RunError('UnsupportedLayout', `the store has no array ${name}`);
    return array;
  }

  /** One decoded chunk (a missing chunk reads as the fill value), cached by decoded bytes. */
  #chunk(array: RemoteArray, index: number[]): Promise<(i: number) => number> {
    const key = array.chunkKey(index);
    const hit = this.#chunks.get(key);
    if (hit) {
      this.#chunks.delete(key);
      this.#chunks.set(key, hit);
      return hit.value;
    }
    const entry = { bytes: 0, value: this.#load(array, index, key) };
    this.#chunks.set(key, entry);
    entry.value.then(
      () => this.#evict(),
      () => this.#chunks.delete(key),
    );
    return entry.value;
  }

  async #load(array: RemoteArray, index: number[], key: string): Promise<(i: number) => number> {
    const values: ChunkValues | undefined = await readChunk(this.#store, array, index).catch(unsupportedLayout);
    if (!values) {
      const fill = array.fillValue ?? Number.NaN;
      return () => fill;
    }
    const cached = this.#chunks.get(key);
    if (cached) cached.bytes = values.byteLength;
    return values instanceof BigInt64Array || values instanceof BigUint64Array
      ? (i) => Number(values[i]!)
      : (i) => values[i]!;
  }

  #evict(): void {
    let total = 0;
    for (const entry of this.#chunks.values()) total += entry.bytes;
    for (const [key, entry] of this.#chunks) {
      if (total <= this.#cacheBytes) break;
      this.#chunks.delete(key);
      total -= entry.bytes;
    }
  }

  /**
   * The values of `array` over the box `[start, stop)` per dimension, row-major, with CF packing undone
   * (`scale_factor`, `add_offset`) and `_FillValue`/`missing_value` as NaN.
   */
  async read(array: RemoteArray, box: [number, number][]): Promise<Float64Array> {
    const { chunks: chunkShape, attributes: attrs } = array;
    const dims = box.length;
    const extent = box.map(([a, b]) => b - a);
    const out = new Float64Array(extent.reduce((a, b) => a * b, 1));
    const firstChunk = box.map(([a], d) => Math.floor(a / chunkShape[d]!));
    const lastChunk = box.map(([, b], d) => Math.floor((b - 1) / chunkShape[d]!));
    const indices: number[][] = [[]];
    for (let d = 0; d < dims; d++) {
      const next: number[][] = [];
      for (const prefix of indices) for (let c = firstChunk[d]!; c <= lastChunk[d]!; c++) next.push([...prefix, c]);
      indices.splice(0, indices.length, ...next);
    }
    const chunks = await Promise.all(indices.map((index) => this.#chunk(array, index)));
    const missing = [attrs._FillValue, attrs.missing_value].filter((v) => typeof v === 'number') as number[];
    const scale = typeof attrs.scale_factor === 'number' ? attrs.scale_factor : 1;
    const offset = typeof attrs.add_offset === 'number' ? attrs.add_offset : 0;
    const outStrides = extent.map((_, d) => extent.slice(d + 1).reduce((a, b) => a * b, 1));
    const chunkStrides = chunkShape.map((_, d) => chunkShape.slice(d + 1).reduce((a, b) => a * b, 1));
    indices.forEach((index, n) => {
      const data = chunks[n]!;
      // The part of this chunk inside the box, in array coordinates.
      const lo = index.map((c, d) => Math.max(box[d]![0], c * chunkShape[d]!));
      const hi = index.map((c, d) => Math.min(box[d]![1], (c + 1) * chunkShape[d]!));
      const position = [...lo];
      for (;;) {
        let from = 0;
        let to = 0;
        for (let d = 0; d < dims; d++) {
          from += (position[d]! - index[d]! * chunkShape[d]!) * chunkStrides[d]!;
          to += (position[d]! - box[d]![0]) * outStrides[d]!;
        }
        const raw = data(from);
        out[to] = missing.includes(raw) || Number.isNaN(raw) ? Number.NaN : raw * scale + offset;
        let d = dims - 1;
        while (d >= 0 && ++position[d]! >= hi[d]!) position[d] = lo[d--]!;
        if (d < 0) break;
      }
    });
    return out;
  }
}
