import { promisify } from 'node:util';
import { deflate, inflate, zstdCompress, zstdDecompress, constants } from 'node:zlib';

/**
 * Chunk compressors, by their numcodecs ids so that Python zarr, GDAL and JavaScript readers decode them.
 * Both run on libuv's thread pool, so chunks compress in parallel with the main thread.
 */
export type Compressor = { id: 'zlib'; level: number } | { id: 'zstd'; level: number };

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);
const zstdCompressAsync = promisify(zstdCompress);
const zstdDecompressAsync = promisify(zstdDecompress);

export async function encodeChunk(compressor: Compressor | null, bytes: Uint8Array): Promise<Uint8Array> {
  if (!compressor) return bytes;
  if (compressor.id === 'zlib') return deflateAsync(bytes, { level: compressor.level });
  return zstdCompressAsync(bytes, {
    params: { [constants.ZSTD_c_compressionLevel]: compressor.level, [constants.ZSTD_c_checksumFlag]: 0 },
  });
}

export async function decodeChunk(compressor: Compressor | null, bytes: Uint8Array): Promise<Uint8Array> {
  if (!compressor) return bytes;
  return compressor.id === 'zlib' ? inflateAsync(bytes) : zstdDecompressAsync(bytes);
}
