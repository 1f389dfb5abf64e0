import { levelPlane } from '../stores/pyramid.ts';
import type { RasterGrid } from '../stores/raster-grid.ts';
import { colorRamp } from './colormap.ts';
import { encodePng } from './png.ts';

export interface ThumbnailStyle {
  colormap: string;
  /** Values mapped to the two ends of the colormap; the data's own range when absent. */
  range?: [number, number];
  nodata?: number;
}

/** The longer side of every thumbnail, large enough to read when shown inline on a page. */
const SIDE = 256;

/**
 * A PNG preview of one raster plane (row-major, north-up): scaled by nearest neighbour, up or down, to 256 pixels
 * on its longer side (a small grid's cells become blocks of pixels), coloured with the style, with no-data and NaN cells transparent. Returns undefined when no
 * cell has a value, so the caller keeps the previous image.
 */
export function renderThumbnail(
  values: Float32Array,
  width: number,
  height: number,
  style: ThumbnailStyle,
): Buffer | undefined {
  const valid = (v: number) => Number.isFinite(v) && v !== style.nodata;
  let [lo, hi] = style.range ?? [Infinity, -Infinity];
  if (!style.range) for (const v of values) if (valid(v)) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
  if (!values.some(valid)) return undefined;
  const scale = SIDE / Math.max(width, height);
  const [w, h] = [Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale))];
  const rgba = new Uint8Array(w * h * 4);
  const span = hi - lo || 1;
  const paint = colorRamp(style.colormap);
  for (let y = 0; y < h; y++) {
    const sy = Math.min(height - 1, Math.floor((y * height) / h));
    for (let x = 0; x < w; x++) {
      const v = values[sy * width + Math.min(width - 1, Math.floor((x * width) / w))]!;
      if (!valid(v)) continue;
      paint((v - lo) / span, rgba, (y * w + x) * 4);
    }
  }
  return encodePng(w, h, rgba);
}

/**
 * The thumbnail of a plane on `grid`, drawn from the coarsest multiscale level (`core/stores/pyramid.ts`) whose
 * cells are no larger than a thumbnail pixel: each pixel shows the mean of the cells under it rather than one
 * cell picked out of many, and a grid without levels is drawn from its own cells.
 */
export function renderGridThumbnail(values: Float32Array, grid: RasterGrid, style: ThumbnailStyle) {
  const pixel = (grid.resolution * Math.max(grid.lat.length, grid.lon.length)) / SIDE;
  const level = levelPlane(values, grid, pixel);
  return renderThumbnail(level.values, level.grid.lon.length, level.grid.lat.length, style);
}
