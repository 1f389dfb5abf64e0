import { getDecoder, type GeoTIFFImage } from 'geotiff';
import { RunError } from '../runs/errors.ts';
import type { RasterGrid } from '../stores/raster-grid.ts';
import { DEFLATE_COMPRESSIONS, type RemoteTiff } from './geotiff.ts';
import { inflater } from './inflate.ts';

/** Pixel window of a north-up raster: columns [x0, x1) and rows [y0, y1). */
export interface PixelWindow {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

type SampleArray =
  Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

/** The typed array of each sample format (1 unsigned, 2 signed, 3 float) and size in bits. */
type SampleArrayType = new (buffer: ArrayBuffer, byteOffset: number, length: number) => SampleArray;
const SAMPLE_ARRAYS: Record<string, SampleArrayType> = {
  '1/8': Uint8Array,
  '1/16': Uint16Array,
  '1/32': Uint32Array,
  '2/8': Int8Array,
  '2/16': Int16Array,
  '2/32': Int32Array,
  '3/32': Float32Array,
  '3/64': Float64Array,
};

/**
 * Compressions whose stream, cut short, decodes to the first rows of its block: a block of which only the first
 * rows are wanted is fetched and inflated that far.
 */
const PREFIX_DECODABLE = new Set([1, ...DEFLATE_COMPRESSIONS]);

/**
 * How much of a block's stream to fetch for its first `rows` of `rowsWithData`: that share of the stream with half
 * again and 4 KiB to spare (rows compress unevenly); the rest is fetched when it was not enough.
 */
const prefixBytes = (byteCount: number, rows: number, rowsWithData: number) =>
  Math.min(byteCount, Math.ceil(((byteCount * rows) / rowsWithData) * 1.5) + 4096);

/** How the blocks of an image are laid out and decoded, for band 1. */
interface Layout {
  image: GeoTIFFImage;
  width: number;
  height: number;
  across: number;
  /** Samples from one pixel to the next in a block. */
  stride: number;
  sampleBytes: number;
  Samples: SampleArrayType;
  compression: number;
  /** Whether blocks are plain Deflate (no predictor): inflated into `scratch`, not through a decoder. */
  inflatesToScratch: boolean;
  /** A decoder of the first `rows` rows of a block (the predictor undone on those rows). */
  decoder: (rows: number) => ReturnType<typeof getDecoder>;
}

async function layoutOf(image: GeoTIFFImage): Promise<Layout> {
  const directory = image.fileDirectory;
  const bits = Array.from((await directory.loadValue('BitsPerSample')) as ArrayLike<number>);
  const format = ((await directory.loadValue('SampleFormat')) as ArrayLike<number> | undefined)?.[0] ?? 1;
  const Samples = SAMPLE_ARRAYS[`${format}/${bits[0]}`];
  if (!Samples || bits.some((b) => b !== bits[0]))
    throw new RunError('UnsupportedLayout', `samples of ${bits.join(', ')} bits in format ${format} are not supported`);
  const [width, height] = [image.getTileWidth(), image.getTileHeight()];
  const compression = ((await directory.loadValue('Compression')) as number | undefined) ?? 1;
  const predictor = ((await directory.loadValue('Predictor')) as number | undefined) ?? 1;
  // geotiff.js undoes a predictor on the file's bytes as if they were in this machine's order.
  if (!image.littleEndian && predictor !== 1 && bits[0]! > 8)
    throw new RunError('UnsupportedLayout', 'big-endian samples with a predictor are not supported');
  const { planarConfiguration } = image;
  return {
    image,
    width,
    height,
    across: Math.ceil(image.getWidth() / width),
    stride: image.planarConfiguration === 2 ? 1 : bits.length,
    sampleBytes: bits[0]! / 8,
    Samples,
    compression,
    inflatesToScratch: DEFLATE_COMPRESSIONS.includes(compression) && predictor === 1,
    decoder: (rows) =>
      getDecoder(compression, {
        tileWidth: width,
        tileHeight: rows,
        planarConfiguration,
        bitsPerSample: bits,
        predictor,
      }),
  };
}

/** Swaps the bytes of each sample of a big-endian block into this machine's (little-endian) order. */
function toLittleEndian(bytes: Uint8Array, sampleBytes: number) {
  for (let i = 0; i + sampleBytes <= bytes.length; i += sampleBytes) bytes.subarray(i, i + sampleBytes).reverse();
}

/**
 * Where plain Deflate blocks are inflated, one at a time, before their wanted pixels are copied out: one buffer
 * grown as needed rather than a new one a block (a decoded tile is 256 KiB of external memory for the collector).
 */
let scratch = new Uint8Array(0);

/** The first `bytes` of the stream `stream` inflated into `scratch`, valid until the next block is inflated. */
function inflateToScratch(stream: ArrayBuffer, bytes: number): Uint8Array {
  if (scratch.length < bytes) scratch = new Uint8Array(bytes);
  return scratch.subarray(0, inflater.inflate(new Uint8Array(stream), scratch.subarray(0, bytes)));
}

/**
 * Hands the first `rows` rows of block (`bx`, `by`) of band 1 to `use` as samples (none for a sparse block),
 * decoded from only the part of the stream they need when the compression allows it, from the whole block otherwise
 * or when that part fell short. `use` is called synchronously after the block is decoded: a block inflated into
 * `scratch` lives only until the next one is.
 */
async function readBlock(
  tiff: RemoteTiff,
  layout: Layout,
  [bx, by]: [number, number],
  rows: number,
  use: (samples: SampleArray | undefined) => void,
): Promise<void> {
  const { image } = layout;
  const index = by * layout.across + bx;
  const tag = image.isTiled ? 'Tile' : 'Strip';
  const offset = Number(await image.fileDirectory.loadValueIndexed(`${tag}Offsets`, index));
  const byteCount = Number(await image.fileDirectory.loadValueIndexed(`${tag}ByteCounts`, index));
  // A sparse block (no bytes) reads as no data, as GDAL reads it.
  if (byteCount === 0) return use(undefined);
  const rowsWithData = Math.min(image.getBlockHeight(by), image.getHeight() - by * layout.height);
  const rowSamples = layout.width * layout.stride;
  const rowBytes = rowSamples * layout.sampleBytes;
  /** Decodes the first `length` bytes of the stream, hands the rows to `use` if all are there; the rows decoded. */
  const decode = async (length: number) => {
    const stream = await tiff.bytes(offset, length);
    const decoded = layout.inflatesToScratch
      ? inflateToScratch(stream, rows * rowBytes)
      : new Uint8Array(await (await layout.decoder(rows)).decode(stream));
    const whole = Math.min(rows, Math.floor(decoded.length / rowBytes));
    if (whole < rows) return whole;
    if (!image.littleEndian && layout.sampleBytes > 1)
      toLittleEndian(decoded.subarray(0, rows * rowBytes), layout.sampleBytes);
    use(new layout.Samples(decoded.buffer as ArrayBuffer, decoded.byteOffset, rows * rowSamples));
    return whole;
  };
  const prefix = PREFIX_DECODABLE.has(layout.compression) ? prefixBytes(byteCount, rows, rowsWithData) : byteCount;
  let decodedRows = await decode(prefix);
  if (decodedRows < rows && prefix < byteCount) decodedRows = await decode(byteCount);
  if (decodedRows < rows)
    throw new RunError(
      'InvalidResponse',
      `${tiff.url}: ${tag.toLowerCase()} ${index} decodes to ${decodedRows} rows, not ${rows}`,
    );
}

/**
 * Writes the pixels of `window` of band 1 into `out`, a raster `outWidth` wide whose cell (`outX`, `outY`) takes
 * the window's first pixel; the file's no-data value and `nodata` (if given) become NaN. Each block is decoded
 * as far as its last wanted row and copied straight into `out`.
 */
async function readPixels(
  tiff: RemoteTiff,
  window: PixelWindow,
  out: Float32Array,
  outWidth: number,
  [outX, outY]: [number, number],
  nodata?: number,
): Promise<void> {
  const layout = await layoutOf(tiff.image);
  const { width, height, stride } = layout;
  const fileNodata = tiff.image.getGDALNoData();
  const copy = (bx: number, by: number, samples: SampleArray | undefined) => {
    const [x0, x1] = [Math.max(window.x0, bx * width), Math.min(window.x1, (bx + 1) * width)];
    const [y0, y1] = [Math.max(window.y0, by * height), Math.min(window.y1, (by + 1) * height)];
    for (let y = y0; y < y1; y++) {
      let at = (y - window.y0 + outY) * outWidth + x0 - window.x0 + outX;
      let from = ((y - by * height) * width + x0 - bx * width) * stride;
      for (let x = x0; x < x1; x++, from += stride) {
        const v = samples ? samples[from]! : (fileNodata ?? 0);
        out[at++] = v === fileNodata || v === nodata ? Number.NaN : v;
      }
    }
  };
  const reads: Promise<void>[] = [];
  for (let by = Math.floor(window.y0 / height); by * height < window.y1; by++)
    for (let bx = Math.floor(window.x0 / width); bx * width < window.x1; bx++) {
      const rows = Math.min(window.y1 - by * height, tiff.image.getBlockHeight(by));
      reads.push(readBlock(tiff, layout, [bx, by], rows, (samples) => copy(bx, by, samples)));
    }
  await Promise.all(reads);
}

/** The origin and cell size of a north-up raster with square pixels, or an UnsupportedLayout error. */
function northUp(image: GeoTIFFImage): { originX: number; originY: number; res: number } {
  const [originX, originY] = image.getOrigin();
  const [resX, resY] = image.getResolution();
  if (resY! >= 0 || Math.abs(Math.abs(resY!) - resX!) > 1e-9)
    throw new RunError('UnsupportedLayout', 'only north-up rasters with square pixels are supported');
  return { originX: originX!, originY: originY!, res: resX! };
}

/**
 * Reads band 1 of `tiff` over `bbox` as float32 on the file's own grid (cell centres), with the file's no-data
 * value and `nodata` (if given) turned into NaN.
 */
export async function readTiffWindow(
  tiff: RemoteTiff,
  bbox: [number, number, number, number],
  nodata?: number,
): Promise<{ grid: RasterGrid; values: Float32Array }> {
  const { image } = tiff;
  const { originX, originY, res } = northUp(image);
  const snap = (v: number, round: (n: number) => number) => round(Math.round(v * 1e6) / 1e6);
  const window: PixelWindow = {
    x0: Math.max(0, snap((bbox[0] - originX) / res, Math.floor)),
    x1: Math.min(image.getWidth(), snap((bbox[2] - originX) / res, Math.ceil)),
    y0: Math.max(0, snap((originY - bbox[3]) / res, Math.floor)),
    y1: Math.min(image.getHeight(), snap((originY - bbox[1]) / res, Math.ceil)),
  };
  if (window.x1 <= window.x0 || window.y1 <= window.y0)
    throw new RunError('OutsideCoverage', `the extent ${bbox.join(',')} lies outside the source raster`);
  const [nx, ny] = [window.x1 - window.x0, window.y1 - window.y0];
  const values = new Float32Array(nx * ny);
  await readPixels(tiff, window, values, nx, [0, 0], nodata);
  const round = (v: number) => Math.round(v * 1e9) / 1e9;
  return {
    grid: {
      lon: Float64Array.from({ length: nx }, (_, i) => round(originX + (window.x0 + i + 0.5) * res)),
      lat: Float64Array.from({ length: ny }, (_, j) => round(originY - (window.y0 + j + 0.5) * res)),
      resolution: res,
    },
    values,
  };
}

/**
 * Reads band 1 of `tiff` onto `grid`, which has the file's cell size and cell edges: one float32 plane of the
 * grid, NaN where the file has no data (its no-data value, `nodata` if given) or does not reach.
 */
export async function readTiffOnGrid(tiff: RemoteTiff, grid: RasterGrid, nodata?: number): Promise<Float32Array> {
  const { image } = tiff;
  const { originX, originY, res } = northUp(image);
  if (Math.abs(res - grid.resolution) > 1e-9)
    throw new RunError('UnsupportedLayout', `expected a ${grid.resolution} degree grid, got ${res}`);
  // The file's pixel under the grid's first cell.
  const gx = Math.round((grid.lon[0]! - originX) / res - 0.5);
  const gy = Math.round((originY - grid.lat[0]!) / res - 0.5);
  const [nx, ny] = [grid.lon.length, grid.lat.length];
  const window: PixelWindow = {
    x0: Math.max(0, gx),
    x1: Math.min(image.getWidth(), gx + nx),
    y0: Math.max(0, gy),
    y1: Math.min(image.getHeight(), gy + ny),
  };
  if (window.x1 <= window.x0 || window.y1 <= window.y0)
    throw new RunError('OutsideCoverage', 'the extent lies outside the source raster');
  const plane = new Float32Array(nx * ny);
  if (window.x1 - window.x0 < nx || window.y1 - window.y0 < ny) plane.fill(Number.NaN);
  await readPixels(tiff, window, plane, nx, [window.x0 - gx, window.y0 - gy], nodata);
  return plane;
}
