import { addDecoder, BaseClient, BaseDecoder, BaseResponse, fromCustomClient, type GeoTIFFImage } from 'geotiff';
import { RunError } from '../runs/errors.ts';
import { httpGet, type HttpBody, type HttpGetOptions } from './http.ts';
import { inflater } from './inflate.ts';
import { ownBuffer } from '../buffers.ts';

/** TIFF's Deflate compression codes: 8 (TIFF 6) and 32946 (the older Adobe code). */
export const DEFLATE_COMPRESSIONS = [8, 32946];

/**
 * Deflate tiles through Node's native zlib instead of geotiff.js's JavaScript inflate (several times faster), in
 * the calling thread: zlib's asynchronous inflate on libuv's pool cost more CPU per tile and gained no time with
 * several reads in flight on a loaded machine (measured in docs/performance.md's history, "ingestion CPU").
 * Made with a `tileHeight` of the rows wanted (readTiffWindow wants a block's first rows only), a decoder takes the
 * first part of a block's stream and decodes the whole rows it holds, at most those wanted.
 */
class NativeDeflateDecoder extends BaseDecoder {
  /** The rows' decoded size: inflating stops there. A shorter block (the last strip) costs a copy. */
  readonly #wantedBytes: number;
  readonly #rowBytes: number;
  constructor(parameters: ConstructorParameters<typeof BaseDecoder>[0]) {
    super(parameters);
    const { tileWidth, tileHeight, bitsPerSample, planarConfiguration } = parameters;
    const bits = typeof bitsPerSample === 'number' ? [bitsPerSample] : Array.from(bitsPerSample);
    const pixelBits = planarConfiguration === 2 ? bits[0]! : bits.reduce((a, b) => a + b, 0);
    this.#rowBytes = Math.max(1, Math.ceil((tileWidth * pixelBits) / 8));
    this.#wantedBytes = this.#rowBytes * tileHeight;
  }
  override decodeBlock(buffer: ArrayBufferLike): ArrayBufferLike {
    const rows = new Uint8Array(this.#wantedBytes);
    const length = inflater.inflate(new Uint8Array(buffer), rows);
    return ownBuffer(rows.subarray(0, length - (length % this.#rowBytes)));
  }
}
// In-thread: no worker pool.
addDecoder(DEFLATE_COMPRESSIONS, async () => NativeDeflateDecoder, undefined, false);

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
  /** The first `HEAD_BYTES` of the file, read once. */
  #readHead(): Promise<HttpBody> {
    return (this.#head ??= httpGet(this.url, { ...this.#options, range: { start: 0, end: HEAD_BYTES - 1 } }));
  }
  override async request(init: RequestInit = {}) {
    const range = /bytes=(\d+)-(\d+)/.exec(new Headers(init.headers).get('range') ?? '');
    const [start, end] = range ? [Number(range[1]), Number(range[2])] : [0, 0];
    if (range && end < HEAD_BYTES) {
      const head = await this.#readHead();
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
  /** Bytes [start, start + length) of the file, from the head already read when they lie in it. */
  async bytes(start: number, length: number): Promise<ArrayBuffer> {
    const end = start + length - 1;
    if (end < HEAD_BYTES) {
      const head = await this.#readHead();
      if (head.status === 206 && end < head.bytes.length) return ownBuffer(head.bytes.subarray(start, end + 1));
    }
    const answer = await httpGet(this.url, { ...this.#options, range: { start, end } });
    if (answer.status !== 206)
      throw new RunError('InvalidResponse', `${this.url} answered a range request with HTTP ${answer.status}`);
    return ownBuffer(answer.bytes);
  }
}

/** The first image of a remote GeoTIFF, and its bytes by range (with the providers' retry policy). */
export interface RemoteTiff {
  url: string;
  image: GeoTIFFImage;
  bytes(start: number, length: number): Promise<ArrayBuffer>;
}

export async function openRemoteTiff(url: string, options: HttpGetOptions): Promise<RemoteTiff> {
  const client = new RetryingClient(url, options);
  // One range per request: some servers answer multi-range requests with the whole file.
  const tiff = await fromCustomClient(client, { maxRanges: 0, allowFullFile: false });
  return { url, image: await tiff.getImage(), bytes: (start, length) => client.bytes(start, length) };
}
