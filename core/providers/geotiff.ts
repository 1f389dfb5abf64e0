import { inflateSync } from 'node:zlib';
import { addDecoder, BaseClient, BaseDecoder, BaseResponse, fromCustomClient, type GeoTIFF } from 'geotiff';
import { RunError } from '../runs/errors.ts';
import { httpGet, type HttpBody, type HttpGetOptions } from './http.ts';
import type { RasterGrid } from '../stores/raster-grid.ts';

/** The bytes of `view` as an ArrayBuffer of their own: the view's own buffer when it spans it, else a copy. */
function ownBuffer(view: Uint8Array): ArrayBuffer {
  const { buffer, byteOffset, byteLength } = view;
  if (buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength) return buffer;
  return buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer;
}

/**
 * Deflate tiles through Node's native zlib instead of geotiff.js's JavaScript inflate (several times faster), in
 * the calling thread: zlib's asynchronous inflate on libuv's pool cost more CPU per tile and gained no time with
 * several reads in flight on a loaded machine (measured in docs/performance.md's history, "ingestion CPU").
 */
class NativeDeflateDecoder extends BaseDecoder {
  /**
   * A tile's decoded size, as zlib's output chunk: one buffer of the tile's size instead of 16 KiB pieces joined
   * at the end (a quarter of the inflation's CPU). Only a hint: a shorter block (the last strip) costs a copy.
   */
  readonly #blockBytes: number;
  constructor(parameters: ConstructorParameters<typeof BaseDecoder>[0]) {
    super(parameters);
    const { tileWidth, tileHeight, bitsPerSample, planarConfiguration } = parameters;
    const bits = typeof bitsPerSample === 'number' ? [bitsPerSample] : Array.from(bitsPerSample);
    const pixelBits = planarConfiguration === 2 ? bits[0]! : bits.reduce((a, b) => a + b, 0);
    this.#blockBytes = Math.max(64, Math.ceil((tileWidth * tileHeight * pixelBits) / 8));
  }
  override decodeBlock(buffer: ArrayBufferLike): ArrayBufferLike {
    return ownBuffer(inflateSync(new Uint8Array(buffer), { chunkSize: this.#blockBytes }));
  }
}
// Compression codes 8 and 32946 are both Deflate (TIFF 6 and the older Adobe code). In-thread: no worker pool.
addDecoder([8, 32946], async () => NativeDeflateDecoder, undefined, false);

class Answer extends BaseResponse {
  readonly #status: number;
  readonly #headers: Headers;
  readonly #bytes: Uint8Array;
  constructor(status: number, headers: Headers, bytes: Uint8Array) {
    super();
    [this.#status, this.#headers, this.#bytes] = [status, headers, bytes];
  }
  override get ok() {
    return this.#status >= 200 && this.#status < 300;
  }
  override get status() {
    return this.#status;
  }
  override getHeader(name: string) {
    return this.#headers.get(name) ?? undefined;
  }
  override async getData() {
    return ownBuffer(this.#bytes);
  }
}

/**
 * Bytes read at once from the start of a file: geotiff.js asks for the header's first KiB, then for a KiB from
 * the first directory's offset, each a round trip; one read of the start serves both, and a cloud-optimised file's
 * directories lie there (GDAL's `/vsicurl/` reads 16 KiB first too).
 */
const HEAD_BYTES = 16 * 1024;

/** geotiff.js's HTTP client replaced by `httpGet`, so COG range reads get the providers' retry policy. */
class RetryingClient extends BaseClient {
  readonly #options: HttpGetOptions;
  #head: Promise<HttpBody> | undefined;
  constructor(url: string, options: HttpGetOptions) {
    super(url);
    this.#options = options;
  }
  override async request(init: RequestInit = {}) {
    const range = /bytes=(\d+)-(\d+)/.exec(new Headers(init.headers).get('range') ?? '');
    const [start, end] = range ? [Number(range[1]), Number(range[2])] : [0, 0];
    if (range && end < HEAD_BYTES) {
      const head = await (this.#head ??= httpGet(this.url, {
        ...this.#options,
        range: { start: 0, end: HEAD_BYTES - 1 },
      }));
      const total = /bytes \d+-\d+\/(\d+)/.exec(head.headers.get('content-range') ?? '')?.[1];
      // A server that ignored the range answered the whole file: geotiff.js refuses it as it would have.
      if (head.status !== 206 || total === undefined) return new Answer(head.status, head.headers, head.bytes);
      if (start < head.bytes.length) {
        const bytes = head.bytes.subarray(start, Math.min(end + 1, head.bytes.length));
        const headers = new Headers(head.headers);
        headers.set('content-range', `bytes ${start}-${start + bytes.length - 1}/${total}`);
        headers.set('content-length', String(bytes.length));
        return new Answer(206, headers, bytes);
      }
    }
    const answer = await httpGet(this.url, { ...this.#options, ...(range && { range: { start, end } }) });
    return new Answer(answer.status, answer.headers, answer.bytes);
  }
}

export async function openRemoteTiff(url: string, options: HttpGetOptions): Promise<GeoTIFF> {
  // One range per request: some servers answer multi-range requests with the whole file.
  return fromCustomClient(new RetryingClient(url, options), { maxRanges: 0, allowFullFile: false });
}

/** Pixel window of a north-up raster that covers `bbox`, snapped outwards to whole pixels and clipped. */
export interface PixelWindow {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Reads band 1 of `tiff` over `bbox` as float32 on the file's own grid (cell centres), with the file's no-data
 * value and `nodata` (if given) turned into NaN.
 */
export async function readTiffWindow(
  tiff: GeoTIFF,
  bbox: [number, number, number, number],
  signal?: AbortSignal,
  nodata?: number,
): Promise<{ grid: RasterGrid; values: Float32Array }> {
  const image = await tiff.getImage();
  const [originX, originY] = image.getOrigin();
  const [resX, resY] = image.getResolution();
  if (resY >= 0 || Math.abs(Math.abs(resY) - resX) > 1e-9)
    throw new RunError('UnsupportedLayout', 'only north-up rasters with square pixels are supported');
  const res = resX;
  const snap = (v: number, round: (n: number) => number) => round(Math.round(v * 1e6) / 1e6);
  const window: PixelWindow = {
    x0: Math.max(0, snap((bbox[0] - originX!) / res, Math.floor)),
    x1: Math.min(image.getWidth(), snap((bbox[2] - originX!) / res, Math.ceil)),
    y0: Math.max(0, snap((originY! - bbox[3]) / res, Math.floor)),
    y1: Math.min(image.getHeight(), snap((originY! - bbox[1]) / res, Math.ceil)),
  };
  if (window.x1 <= window.x0 || window.y1 <= window.y0)
    throw new RunError('OutsideCoverage', `the extent ${bbox.join(',')} lies outside the source raster`);
  const raster = (await image.readRasters({
    window: [window.x0, window.y0, window.x1, window.y1],
    samples: [0],
    interleave: true,
    signal,
  })) as unknown as ArrayLike<number>;
  const fileNodata = image.getGDALNoData();
  const values = new Float32Array(raster.length);
  for (let i = 0; i < values.length; i++) {
    const v = raster[i]!;
    values[i] = v === fileNodata || v === nodata ? Number.NaN : v;
  }
  const round = (v: number) => Math.round(v * 1e9) / 1e9;
  return {
    grid: {
      lon: Float64Array.from({ length: window.x1 - window.x0 }, (_, i) =>
        round(originX! + (window.x0 + i + 0.5) * res),
      ),
      lat: Float64Array.from({ length: window.y1 - window.y0 }, (_, j) =>
        round(originY! - (window.y0 + j + 0.5) * res),
      ),
      resolution: res,
    },
    values,
  };
}
