/**
 * A Cloud Optimized GeoTIFF of float32 pixels, written here because the `geotiff` package writes strips only. The
 * layout is the one GDAL's COG validator asks for: the main IFD right after the header, the overviews' IFDs after
 * it, then the tiles, from the smallest overview to the full resolution. Tiles are 256 x 256, pixel-interleaved,
 * deflate-compressed; overviews halve the image (the mean of the finite values of each 2 x 2 block) until it fits
 * in one tile. Nodata is NaN (`GDAL_NODATA`).
 */
import { deflateSync } from 'node:zlib';

export const TILE = 256;

/** GeoTIFF keys and the georeferencing tags of the main image. */
export interface GeoReference {
  /** Cell size, positive. */
  dx: number;
  dy: number;
  /** Outer corner of the first pixel. */
  west: number;
  north: number;
  epsg: number;
}

interface Level {
  width: number;
  height: number;
  pixels: Float32Array;
}

const TYPE = { ascii: 2, short: 3, long: 4, double: 12 } as const;
const SIZE = { 2: 1, 3: 2, 4: 4, 12: 8 } as Record<number, number>;

interface Entry {
  tag: number;
  type: (typeof TYPE)[keyof typeof TYPE];
  values: number[] | string;
}

/** The next level: half the size, each pixel the mean of the finite values of its 2 x 2 block. */
function halve({ width, height, pixels }: Level, bands: number): Level {
  const [w, h] = [Math.ceil(width / 2), Math.ceil(height / 2)];
  const out = new Float32Array(w * h * bands);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      for (let b = 0; b < bands; b++) {
        let [sum, n] = [0, 0];
        for (let dy = 0; dy < 2; dy++)
          for (let dx = 0; dx < 2; dx++) {
            const [sx, sy] = [2 * x + dx, 2 * y + dy];
            if (sx >= width || sy >= height) continue;
            const v = pixels[(sy * width + sx) * bands + b]!;
            if (Number.isFinite(v)) [sum, n] = [sum + v, n + 1];
          }
        out[(y * w + x) * bands + b] = n > 0 ? sum / n : Number.NaN;
      }
  return { width: w, height: h, pixels: out };
}

/** The compressed tiles of a level, row by row; edge tiles padded with NaN to the full tile size. */
function tilesOf({ width, height, pixels }: Level, bands: number): Buffer[] {
  const tiles: Buffer[] = [];
  for (let ty = 0; ty < Math.ceil(height / TILE); ty++)
    for (let tx = 0; tx < Math.ceil(width / TILE); tx++) {
      const tile = new Float32Array(TILE * TILE * bands).fill(Number.NaN);
      for (let row = 0; row < TILE && ty * TILE + row < height; row++) {
        const from = ((ty * TILE + row) * width + tx * TILE) * bands;
        const columns = Math.min(TILE, width - tx * TILE);
        tile.set(pixels.subarray(from, from + columns * bands), row * TILE * bands);
      }
      tiles.push(deflateSync(new Uint8Array(tile.buffer)));
    }
  return tiles;
}

const valueBytes = (e: Entry) => SIZE[e.type]! * e.values.length;

/** An IFD's bytes: its entries (values of more than 4 bytes at `valuesAt`, in order) and its out-of-line values. */
function writeIfd(entries: Entry[], at: number, next: number): Buffer {
  const sorted = [...entries].sort((a, b) => a.tag - b.tag);
  const head = 2 + sorted.length * 12 + 4;
  const outOfLine = sorted
    .filter((e) => valueBytes(e) > 4)
    .reduce((n, e) => n + valueBytes(e) + (valueBytes(e) % 2), 0);
  const buffer = Buffer.alloc(head + outOfLine);
  buffer.writeUInt16LE(sorted.length, 0);
  let extra = head;
  const put = (e: Entry, offset: number) => {
    const values = typeof e.values === 'string' ? [...Buffer.from(e.values, 'latin1')] : e.values;
    values.forEach((v, i) => {
      const o = offset + i * SIZE[e.type]!;
      if (e.type === TYPE.short) buffer.writeUInt16LE(v, o);
      else if (e.type === TYPE.long) buffer.writeUInt32LE(v, o);
      else if (e.type === TYPE.double) buffer.writeDoubleLE(v, o);
      else buffer.writeUInt8(v, o);
    });
  };
  sorted.forEach((e, i) => {
    const o = 2 + i * 12;
    buffer.writeUInt16LE(e.tag, o);
    buffer.writeUInt16LE(e.type, o + 2);
    buffer.writeUInt32LE(e.values.length, o + 4);
    if (valueBytes(e) <= 4) put(e, o + 8);
    else {
      buffer.writeUInt32LE(at + extra, o + 8);
      put(e, extra);
      extra += valueBytes(e) + (valueBytes(e) % 2);
    }
  });
  buffer.writeUInt32LE(next, head - 4);
  return buffer;
}

/** The entries of one level; tile offsets and counts are placeholders until the data is laid out. */
function entriesOf(level: Level, bands: number, tiles: number, overview: boolean, geo: GeoReference): Entry[] {
  const perBand = (v: number) => Array.from({ length: bands }, () => v);
  const entries: Entry[] = [
    { tag: 254, type: TYPE.long, values: [overview ? 1 : 0] },
    { tag: 256, type: TYPE.long, values: [level.width] },
    { tag: 257, type: TYPE.long, values: [level.height] },
    { tag: 258, type: TYPE.short, values: perBand(32) },
    { tag: 259, type: TYPE.short, values: [8] },
    { tag: 262, type: TYPE.short, values: [1] },
    { tag: 277, type: TYPE.short, values: [bands] },
    { tag: 284, type: TYPE.short, values: [1] },
    { tag: 322, type: TYPE.short, values: [TILE] },
    { tag: 323, type: TYPE.short, values: [TILE] },
    { tag: 324, type: TYPE.long, values: new Array<number>(tiles).fill(0) },
    { tag: 325, type: TYPE.long, values: new Array<number>(tiles).fill(0) },
    { tag: 339, type: TYPE.short, values: perBand(3) },
    { tag: 42113, type: TYPE.ascii, values: 'nan\0' },
  ];
  if (bands > 1) entries.push({ tag: 338, type: TYPE.short, values: new Array<number>(bands - 1).fill(0) });
  if (overview) return entries;
  const geographic = geo.epsg === 4326;
  const keys = [
    [1024, 0, 1, geographic ? 2 : 1],
    [1025, 0, 1, 1],
    geographic ? [2048, 0, 1, 4326] : [3072, 0, 1, geo.epsg],
  ];
  return [
    ...entries,
    { tag: 33550, type: TYPE.double, values: [geo.dx, geo.dy, 0] },
    { tag: 33922, type: TYPE.double, values: [0, 0, 0, geo.west, geo.north, 0] },
    { tag: 34735, type: TYPE.short, values: [1, 1, 0, keys.length, ...keys.flat()] },
  ];
}

export function writeCog(
  width: number,
  height: number,
  bands: number,
  pixels: Float32Array,
  geo: GeoReference,
): Uint8Array {
  const levels: Level[] = [{ width, height, pixels }];
  while (Math.max(levels.at(-1)!.width, levels.at(-1)!.height) > TILE) levels.push(halve(levels.at(-1)!, bands));
  const tiles = levels.map((level) => tilesOf(level, bands));
  const entries = levels.map((level, i) => entriesOf(level, bands, tiles[i]!.length, i > 0, geo));
  // First pass for the IFDs' sizes (they do not depend on the offsets), then the offsets.
  const sizes = entries.map((e) => writeIfd(e, 0, 0).length);
  const ifdAt = sizes.map((_, i) => 8 + sizes.slice(0, i).reduce((a, b) => a + b, 0));
  let data = 8 + sizes.reduce((a, b) => a + b, 0);
  // The smallest overview's tiles first, the full resolution's last.
  for (let i = levels.length - 1; i >= 0; i--) {
    const offsets = entries[i]!.find((e) => e.tag === 324)!.values as number[];
    const counts = entries[i]!.find((e) => e.tag === 325)!.values as number[];
    tiles[i]!.forEach((tile, k) => {
      offsets[k] = data;
      counts[k] = tile.length;
      data += tile.length;
    });
  }
  const header = Buffer.alloc(8);
  header.write('II', 0, 'latin1');
  header.writeUInt16LE(42, 2);
  header.writeUInt32LE(8, 4);
  const ifds = entries.map((e, i) => writeIfd(e, ifdAt[i]!, i + 1 < entries.length ? ifdAt[i + 1]! : 0));
  return new Uint8Array(Buffer.concat([header, ...ifds, ...tiles.slice().reverse().flat()]));
}
