/**
 * Web Mercator XYZ map tiles of a raster plane on a regular EPSG:4326 grid: the tile's bounds, and each of its
 * 256 × 256 pixels sampled at its centre (through the inverse projection) from the nearest grid cell, coloured
 * with a colour map; no-data, NaN and pixels off the grid are transparent.
 */
import { colorRamp } from './colormap.ts';
import { encodePng } from './png.ts';

export const TILE_SIZE = 256;
/** The WGS 84 radius Web Mercator (EPSG:3857) projects with. */
const RADIUS = 6378137;
const HALF = Math.PI * RADIUS;
/** Web Mercator's latitude limit: its square world ends here. */
export const MAX_LATITUDE = 85.0511287798066;

export interface TileBounds {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** Whether z/x/y names a tile: z in 0..24, x and y in 0..2^z - 1. */
export function isTile(z: number, x: number, y: number): boolean {
  return [z, x, y].every(Number.isInteger) && z >= 0 && z <= 24 && x >= 0 && y >= 0 && x < 2 ** z && y < 2 ** z;
}

/** The tile's corners in EPSG:3857 metres (west, south, east, north). */
export function tileMercatorBounds(z: number, x: number, y: number): TileBounds {
  const size = (2 * HALF) / 2 ** z;
  return { west: -HALF + x * size, east: -HALF + (x + 1) * size, north: HALF - y * size, south: HALF - (y + 1) * size };
}

const lonOf = (mx: number) => (mx / RADIUS) * (180 / Math.PI);
const latOf = (my: number) => (2 * Math.atan(Math.exp(my / RADIUS)) - Math.PI / 2) * (180 / Math.PI);

/** The tile's corners in degrees. */
export function tileBounds(z: number, x: number, y: number): TileBounds {
  const m = tileMercatorBounds(z, x, y);
  return { west: lonOf(m.west), east: lonOf(m.east), north: latOf(m.north), south: latOf(m.south) };
}

/**
 * The smaller side of a pixel of tile z/x/y in degrees: the longitude a pixel spans, or the latitude it spans at the
 * tile's edge nearest a pole, where Mercator pixels span the fewest degrees of latitude.
 */
export function tilePixelDegrees(z: number, x: number, y: number): number {
  const m = tileMercatorBounds(z, x, y);
  const pixel = (m.east - m.west) / TILE_SIZE;
  const poleward = Math.max(Math.abs(m.north), Math.abs(m.south));
  return Math.min(lonOf(pixel), latOf(poleward) - latOf(poleward - pixel));
}

/**
 * The level a tile reads among levels of `cellSizes` degrees (finest first): the coarsest whose cells are still no
 * larger than the tile's pixels, so that no pixel spans less than a cell; the finest when none is that fine.
 */
export function tileLevel(cellSizes: readonly number[], z: number, x: number, y: number): number {
  const pixel = tilePixelDegrees(z, x, y) * (1 + 1e-9);
  let level = 0;
  while (level + 1 < cellSizes.length && cellSizes[level + 1]! <= pixel) level++;
  return level;
}

/** A regular grid of cell centres: the first column's and row's centres and the signed steps. */
export interface Grid {
  lon0: number;
  lat0: number;
  dx: number;
  dy: number;
  width: number;
  height: number;
}

/** The grid cell (column, row) whose area holds each pixel centre of the tile, or -1 for pixels off the grid. */
export function tileCells(grid: Grid, z: number, x: number, y: number): Int32Array {
  const m = tileMercatorBounds(z, x, y);
  const pixel = (m.east - m.west) / TILE_SIZE;
  const cells = new Int32Array(TILE_SIZE * TILE_SIZE * 2).fill(-1);
  for (let j = 0; j < TILE_SIZE; j++) {
    const lat = latOf(m.north - (j + 0.5) * pixel);
    const row = Math.floor((lat - grid.lat0) / grid.dy + 0.5);
    if (row < 0 || row >= grid.height) continue;
    for (let i = 0; i < TILE_SIZE; i++) {
      const col = Math.floor((lonOf(m.west + (i + 0.5) * pixel) - grid.lon0) / grid.dx + 0.5);
      if (col < 0 || col >= grid.width) continue;
      cells[(j * TILE_SIZE + i) * 2] = col;
      cells[(j * TILE_SIZE + i) * 2 + 1] = row;
    }
  }
  return cells;
}

export interface TileStyle {
  colormap: string;
  range: [number, number];
  nodata?: number;
}

/**
 * The PNG of a tile from its 256 × 256 values (row-major, north-up); NaN (a pixel off the grid), other
 * non-finite values and no-data are transparent.
 */
export function renderTile(values: Float64Array, style: TileStyle): Buffer {
  const rgba = new Uint8Array(TILE_SIZE * TILE_SIZE * 4);
  const [lo, hi] = style.range;
  const span = hi - lo || 1;
  const paint = colorRamp(style.colormap);
  for (let p = 0; p < TILE_SIZE * TILE_SIZE; p++) {
    const v = values[p]!;
    if (Number.isFinite(v) && v !== style.nodata) paint((v - lo) / span, rgba, p * 4);
  }
  return encodePng(TILE_SIZE, TILE_SIZE, rgba);
}
