import type { ReadableStore } from '../store.ts';
import { DECODABLE, decodeChunk, type Compressor } from './codecs.ts';
import { ZarrFormatError, type ZarrArray, type ZarrCodec } from './metadata.ts';
import { spansItsBuffer } from '../../buffers.ts';

/** Typed arrays by v3 data type: what a decoded chunk is returned as (the host is little-endian, group-writer.ts). */
const TYPED = {
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  float32: Float32Array,
  float64: Float64Array,
} as const;

export type ChunkValues = InstanceType<(typeof TYPED)[keyof typeof TYPED]>;

/**
 * The codecs of an array as this build decodes them: `bytes` in either byte order, then at most one compressor it
 * decodes (codecs.ts). Anything else is refused, naming the codec.
 */
function pipelineOf(array: ZarrArray): { bigEndian: boolean; compressor: ZarrCodec | undefined } {
  const [bytes, compressor, ...rest] = array.codecs;
  if (bytes?.name !== 'bytes')
    throw new ZarrFormatError(`array ${array.name}: codec ${bytes?.name ?? '(none)'} is not supported`);
  if (compressor && (!DECODABLE.has(compressor.name) || rest.length > 0))
    throw new ZarrFormatError(`array ${array.name}: codec ${(rest[0] ?? compressor).name} is not supported`);
  return { bigEndian: bytes.configuration.endian === 'big', compressor };
}

/** Compressors the writers encode, by their numcodecs ids. */
const WRITABLE = new Set<string>(['zlib', 'gzip', 'zstd'] satisfies Compressor['id'][]);

/**
 * The compressor with which a writer continues an array (an append): the stored one, which must be little-endian
 * and compressed with a codec the writers encode.
 */
export function compressorOf(array: ZarrArray): Compressor | null {
  const { bigEndian, compressor } = pipelineOf(array);
  if (bigEndian || (compressor && !WRITABLE.has(compressor.name)))
    throw new ZarrFormatError(
      `array ${array.name}: Stratus does not write ${bigEndian ? 'big-endian' : compressor!.name} chunks`,
    );
  if (!compressor) return null;
  const level = compressor.configuration.level;
  return { id: compressor.name as Compressor['id'], level: typeof level === 'number' ? level : 1 };
}

function typedArrayOf(array: ZarrArray) {
  const type = TYPED[array.dataType as keyof typeof TYPED];
  if (!type) throw new ZarrFormatError(`array ${array.name}: data type ${array.dataType} is not supported`);
  return type;
}

/**
 * How the chunks of an array decode, as plain data (it crosses to worker threads): the data type, the cells of a
 * chunk's full shape, the byte order and the compressor.
 */
export interface ChunkDecoding {
  dataType: string;
  cells: number;
  bigEndian: boolean;
  compressor: ZarrCodec | undefined;
}

export function chunkDecoding(array: ZarrArray): ChunkDecoding {
  typedArrayOf(array); // refuses a data type it cannot decode, before any chunk is read
  const { bigEndian, compressor } = pipelineOf(array);
  return { dataType: array.dataType, cells: array.chunks.reduce((n, size) => n * size, 1), bigEndian, compressor };
}

/**
 * The values of a stored chunk's bytes (`key` names it in errors), in a buffer of their own: the stored bytes'
 * own when they need no decoding and the caller `owned` them (`ReadableStore.freshBytes`), else decoded or copied.
 */
export async function decodeChunkValues(
  decoding: ChunkDecoding,
  stored: Uint8Array,
  key: string,
  owned = false,
): Promise<ChunkValues> {
  const { dataType, cells, bigEndian, compressor } = decoding;
  const type = TYPED[dataType as keyof typeof TYPED];
  const bytes = await decodeChunk(compressor, stored, cells * type.BYTES_PER_ELEMENT).catch((err: unknown) => {
    throw new ZarrFormatError(`chunk ${key} does not decode: ${err instanceof Error ? err.message : String(err)}`);
  });
  if (bytes.byteLength !== cells * type.BYTES_PER_ELEMENT)
    throw new ZarrFormatError(`chunk ${key} holds ${bytes.byteLength} bytes, not ${cells} ${dataType} values`);
  // A buffer of its own: stored bytes may be shared (a cache), and decoded ones a view into a larger (pooled)
  // buffer; bytes a codec decoded into exactly their own buffer are already the caller's, and so are stored bytes
  // the caller `owned`.
  const own = (compressor !== undefined || owned) && spansItsBuffer(bytes);
  const copy = own ? bytes : new Uint8Array(bytes);
  const size = type.BYTES_PER_ELEMENT;
  // Typed arrays are in the host's order, little-endian (group-writer.ts).
  if (bigEndian && size > 1) for (let i = 0; i < copy.length; i += size) copy.subarray(i, i + size).reverse();
  return new type(copy.buffer as ArrayBuffer);
}

/**
 * Chunk `index` of `array`, decoded: every cell of the chunk's full shape (edge chunks hold fill values past the
 * array's edge), in C order. Undefined when the store holds no such chunk: the array's fill value everywhere, which
 * the caller applies or refuses.
 */
export async function readChunk(
  store: ReadableStore,
  array: ZarrArray,
  index: number[],
): Promise<ChunkValues | undefined> {
  const decoding = chunkDecoding(array);
  const key = array.chunkKey(index);
  const stored = await store.get(key);
  return stored && decodeChunkValues(decoding, stored, key);
}

/**
 * Every value of a one-dimensional array (a coordinate), or undefined when one of its chunks is not stored.
 */
export async function readVector(store: ReadableStore, array: ZarrArray): Promise<ChunkValues | undefined> {
  if (array.shape.length !== 1)
    throw new ZarrFormatError(`array ${array.name} has ${array.shape.length} dimensions, not 1`);
  const [length, chunk] = [array.shape[0]!, array.chunks[0]!];
  const values = new (typedArrayOf(array))(length);
  for (let c = 0; c * chunk < length; c++) {
    const part = await readChunk(store, array, [c]);
    if (!part) return undefined;
    // Same element type on both sides; the union of typed arrays hides it from the checker.
    (values as Float64Array).set((part as Float64Array).subarray(0, Math.min(chunk, length - c * chunk)), c * chunk);
  }
  return values;
}
