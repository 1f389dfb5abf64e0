import { promisify } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import {
  constants,
  deflate,
  gunzip,
  gunzipSync,
  gzip,
  inflate,
  inflateSync,
  zstdCompress,
  zstdDecompress,
  zstdDecompressSync,
} from 'node:zlib';

/**
 * Chunk compressors, by their numcodecs ids so that Python zarr, GDAL and JavaScript readers decode them.
 * Both run on libuv's thread pool, so chunks compress in parallel with the main thread.
 */
export type Compressor = { id: 'zlib' | 'gzip' | 'zstd'; level: number };

const deflateAsync = promisify(deflate);
const gzipAsync = promisify(gzip);
const zstdCompressAsync = promisify(zstdCompress);
const inflateAsync = promisify(inflate);
const gunzipAsync = promisify(gunzip);
const zstdDecompressAsync = promisify(zstdDecompress);

export async function encodeChunk(compressor: Compressor | null, bytes: Uint8Array): Promise<Uint8Array> {
  if (!compressor) return bytes;
  // Output in one buffer of at most the input's size and a little (Deflate's bound): in zlib's default 16 KiB steps
  // a chunk of a few MB makes as many round trips to libuv's pool and pieces to join.
  const options = {
    level: compressor.level,
    chunkSize: Math.max(64 * 1024, bytes.byteLength + (bytes.byteLength >> 8)),
  };
  if (compressor.id === 'zlib') return deflateAsync(bytes, options);
  if (compressor.id === 'gzip') return gzipAsync(bytes, options);
  return zstdCompressAsync(bytes, {
    params: { [constants.ZSTD_c_compressionLevel]: compressor.level, [constants.ZSTD_c_checksumFlag]: 0 },
  });
}

/** Compressors the reader decodes: those the writers encode, and Blosc, which remote stores (ERA5-Land) use. */
export const DECODABLE = new Set(['zlib', 'gzip', 'zstd', 'blosc']);

/**
 * The inverse of encodeChunk, for any compressor in `DECODABLE` named as a Zarr codec (`configuration` is the
 * codec's, as stored). Blosc has no native binding in Node: numcodecs.js carries it as WebAssembly, loaded on
 * first use. The main thread decodes on libuv's thread pool; a worker thread decodes in itself, as it is there for
 * such work: a hop to the pool and back costs it more CPU a chunk than it saves.
 */
export async function decodeChunk(
  codec: { name: string; configuration: Record<string, unknown> } | undefined,
  bytes: Uint8Array,
  decodedBytes?: number,
): Promise<Uint8Array> {
  if (!codec) return bytes;
  // Output in one buffer of the decoded size: zlib's default 16 KiB steps make a large chunk cost several times the time.
  const options = decodedBytes ? { chunkSize: Math.max(64 * 1024, decodedBytes) } : {};
  switch (codec.name) {
    case 'zlib':
      return isMainThread ? inflateAsync(bytes, options) : inflateSync(bytes, options);
    case 'gzip':
      return isMainThread ? gunzipAsync(bytes, options) : gunzipSync(bytes, options);
    case 'zstd':
      return isMainThread ? zstdDecompressAsync(bytes, options) : zstdDecompressSync(bytes, options);
    case 'blosc': {
      const { default: Blosc } = await import('numcodecs/blosc');
      return Blosc.fromConfig({ id: 'blosc', ...codec.configuration } as never).decode(bytes);
    }
    default:
      throw new Error(`codec ${codec.name} cannot be decoded`);
  }
}
