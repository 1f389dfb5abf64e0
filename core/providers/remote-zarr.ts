import { gunzipSync, inflateSync, zstdDecompressSync } from 'node:zlib';
import { RunError } from '../runs/errors.ts';
import { httpGet, type HttpGetOptions } from './http.ts';

/** Zarr v2 array metadata as readers meet it (any numeric dtype, either byte order, C order). */
interface ArrayMeta {
  shape: number[];
  chunks: number[];
  dtype: string;
  compressor: ({ id: string } & Record<string, unknown>) | null;
  fill_value: number | string | null;
  order: 'C' | 'F';
  filters: unknown[] | null;
  dimension_separator?: '.' | '/';
}

export interface RemoteArray {
  name: string;
  meta: ArrayMeta;
  attrs: Record<string, unknown>;
}

const TYPES: Record<string, { bytes: number; get: (view: DataView, offset: number, little: boolean) => number }> = {
  f4: { bytes: 4, get: (v, o, l) => v.getFloat32(o, l) },
  f8: { bytes: 8, get: (v, o, l) => v.getFloat64(o, l) },
  i1: { bytes: 1, get: (v, o) => v.getInt8(o) },
  u1: { bytes: 1, get: (v, o) => v.getUint8(o) },
  i2: { bytes: 2, get: (v, o, l) => v.getInt16(o, l) },
  u2: { bytes: 2, get: (v, o, l) => v.getUint16(o, l) },
  i4: { bytes: 4, get: (v, o, l) => v.getInt32(o, l) },
  u4: { bytes: 4, get: (v, o, l) => v.getUint32(o, l) },
  i8: { bytes: 8, get: (v, o, l) => Number(v.getBigInt64(o, l)) },
  u8: { bytes: 8, get: (v, o, l) => Number(v.getBigUint64(o, l)) },
};

async function decompress(compressor: ArrayMeta['compressor'], bytes: Uint8Array): Promise<Uint8Array> {
  if (!compressor) return bytes;
  switch (compressor.id) {
    case 'zlib':
      return inflateSync(bytes);
    case 'gzip':
      return gunzipSync(bytes);
    case 'zstd':
      return zstdDecompressSync(bytes);
    case 'blosc': {
      // Blosc has no native binding in Node; numcodecs.js carries it as WebAssembly.
      const { default: Blosc } = await import('numcodecs/blosc');
      return Blosc.fromConfig(compressor as never).decode(bytes);
    }
    default:
      throw new RunError('UnsupportedLayout', `Zarr compressor ${compressor.id} is not supported`);
  }
}

/**
 * A remote Zarr v2 group read over HTTP with consolidated metadata (`.zmetadata`), one chunk per request, decoded
 * chunks kept in a least-recently-used cache bounded by bytes: time-chunked stores answer many periods from one
 * chunk.
 */
export class RemoteZarrGroup {
  readonly #url: string;
  readonly #http: HttpGetOptions;
  readonly #metadata: Record<string, unknown>;
  readonly #chunks = new Map<string, { bytes: number; value: Promise<(i: number) => number> }>();
  readonly #cacheBytes: number;

  private constructor(url: string, http: HttpGetOptions, metadata: Record<string, unknown>, cacheBytes: number) {
    [this.#url, this.#http, this.#metadata, this.#cacheBytes] = [url, http, metadata, cacheBytes];
  }

  static async open(url: string, http: HttpGetOptions, cacheBytes = 512 << 20): Promise<RemoteZarrGroup> {
    const base = url.replace(/\/+$/, '');
    const { bytes } = await httpGet(`${base}/.zmetadata`, http);
    let consolidated: { metadata?: Record<string, unknown> };
    try {
      consolidated = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new RunError('UnsupportedLayout', `${base}/.zmetadata is not JSON`);
    }
    if (!consolidated.metadata)
      throw new RunError('UnsupportedLayout', `${base}/.zmetadata has no consolidated metadata`);
    return new RemoteZarrGroup(base, http, consolidated.metadata, cacheBytes);
  }

  has(name: string): boolean {
    return `${name}/.zarray` in this.#metadata;
  }

  array(name: string): RemoteArray {
    const meta = this.#metadata[`${name}/.zarray`] as ArrayMeta | undefined;
    if (!meta) throw new RunError('UnsupportedLayout', `the store has no array ${name}`);
    if (meta.order !== 'C' || (meta.filters && meta.filters.length > 0))
      throw new RunError('UnsupportedLayout', `array ${name}: only C order without filters is supported`);
    if (!TYPES[meta.dtype.slice(1)]) throw new RunError('UnsupportedLayout', `array ${name}: dtype ${meta.dtype}`);
    return { name, meta, attrs: (this.#metadata[`${name}/.zattrs`] as Record<string, unknown>) ?? {} };
  }

  /** One decoded chunk, read in place (a missing chunk reads as the fill value), cached by decoded bytes. */
  #chunk(array: RemoteArray, index: number[]): Promise<(i: number) => number> {
    const key = `${array.name}/${index.join(array.meta.dimension_separator ?? '.')}`;
    const hit = this.#chunks.get(key);
    if (hit) {
      this.#chunks.delete(key);
      this.#chunks.set(key, hit);
      return hit.value;
    }
    const entry = { bytes: 0, value: this.#load(array, key) };
    this.#chunks.set(key, entry);
    entry.value.then(
      () => this.#evict(),
      () => this.#chunks.delete(key),
    );
    return entry.value;
  }

  async #load(array: RemoteArray, key: string): Promise<(i: number) => number> {
    const { meta } = array;
    const size = meta.chunks.reduce((a, b) => a * b, 1);
    const type = TYPES[meta.dtype.slice(1)]!;
    let raw: Uint8Array;
    try {
      raw = await decompress(meta.compressor, (await httpGet(`${this.#url}/${key}`, this.#http)).bytes);
    } catch (err) {
      // A chunk that was never written holds the fill value (Zarr v2).
      if (err instanceof RunError && err.code === 'PeriodUnavailable') {
        const fill = meta.fill_value === 'NaN' || meta.fill_value === null ? Number.NaN : Number(meta.fill_value);
        return () => fill;
      }
      throw err;
    }
    if (raw.length !== size * type.bytes)
      throw new RunError('UnsupportedLayout', `chunk ${key} has ${raw.length} bytes, expected ${size * type.bytes}`);
    const cached = this.#chunks.get(key);
    if (cached) cached.bytes = raw.length;
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const little = meta.dtype[0] !== '>';
    return (i) => type.get(view, i * type.bytes, little);
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
    const { meta, attrs } = array;
    const dims = box.length;
    const extent = box.map(([a, b]) => b - a);
    const out = new Float64Array(extent.reduce((a, b) => a * b, 1));
    const firstChunk = box.map(([a], d) => Math.floor(a / meta.chunks[d]!));
    const lastChunk = box.map(([, b], d) => Math.floor((b - 1) / meta.chunks[d]!));
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
    const chunkStrides = meta.chunks.map((_, d) => meta.chunks.slice(d + 1).reduce((a, b) => a * b, 1));
    indices.forEach((index, n) => {
      const data = chunks[n]!;
      // The part of this chunk inside the box, in array coordinates.
      const lo = index.map((c, d) => Math.max(box[d]![0], c * meta.chunks[d]!));
      const hi = index.map((c, d) => Math.min(box[d]![1], (c + 1) * meta.chunks[d]!));
      const position = [...lo];
      for (;;) {
        let from = 0;
        let to = 0;
        for (let d = 0; d < dims; d++) {
          from += (position[d]! - index[d]! * meta.chunks[d]!) * chunkStrides[d]!;
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
