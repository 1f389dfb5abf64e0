import { promisify } from 'node:util';
import { constants, deflate, gunzip, gzip, inflate, zstdCompress, zstdDecompress } from 'node:zlib';

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
  if (compressor.id === 'zlib') return deflateAsync(bytes, { level: compressor.level });
  if (compressor.id === 'gzip') return gzipAsync(bytes, { level: compressor.level });
  return zstdCompressAsync(bytes, {
    params: { [constants.ZSTD_c_compressionLevel]: compressor.level, [constants.ZSTD_c_checksumFlag]: 0 },
  });
}

/** The inverse of encodeChunk, for an append that rewrites the last, partly filled block of a store. */
export async function decodeChunk(compressor: Compressor | null, bytes: Uint8Array): Promise<Uint8Array> {
  if (!compressor) return bytes;
  if (compressor.id === 'zlib') return inflateAsync(bytes);
  if (compressor.id === 'gzip') return gunzipAsync(bytes);
  return zstdDecompressAsync(bytes);
}
