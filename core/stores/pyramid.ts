/**
 * Multiscale levels of a raster cube (the Zarr multiscales convention v0.1.0,
 * https://github.com/zarr-conventions/multiscales): a grid larger than 1024 cells on a side gets coarser copies,
 * each a 2 × 2 mean of the one before, so that a map at a small zoom reads a few level chunks instead of the whole
 * grid. The store root keeps the full-resolution variable (xarray opens it as before); level `n` is the child group
 * `n/` holding the same variable and its own `lat`/`lon`.
 */
import type { RasterGrid } from './raster-grid.ts';

/** A grid gets levels when a side exceeds this many cells. */
export const PYRAMID_THRESHOLD = 1024;
/** Levels stop once a side fits one map tile. */
const COARSEST_SIDE = 256;

const MULTISCALES_CONVENTION = {
  uuid: 'd35379db-88df-4056-af3a-620245f8e347',
  schema_url: 'https://raw.githubusercontent.com/zarr-conventions/multiscales/refs/tags/v0.1.0/schema.json',
  spec_url: 'https://github.com/zarr-conventions/multiscales/blob/v0.1.0/README.md',
  name: 'multiscales',
  description: 'Multiscale layout of zarr datasets',
};

/** The grids of levels 1, 2, ... of a grid (none for a grid within the threshold): cell centres of each 2 × 2 block. */
export function pyramidGrids(grid: RasterGrid): RasterGrid[] {
  const levels: RasterGrid[] = [];
  if (Math.max(grid.lat.length, grid.lon.length) <= PYRAMID_THRESHOLD) return levels;
  let level = grid;
  while (Math.max(level.lat.length, level.lon.length) > COARSEST_SIDE) {
    const half = level.resolution / 2;
    // A block's centre is half a coarse cell from its first fine cell's outer edge, whether or not the block is cut.
    const centres = (axis: Float64Array, sign: number) =>
      Float64Array.from({ length: Math.ceil(axis.length / 2) }, (_, i) => axis[2 * i]! + sign * half);
    level = { ...level, resolution: level.resolution * 2, lat: centres(level.lat, -1), lon: centres(level.lon, 1) };
    levels.push(level);
  }
  return levels;
}

/**
 * The 2 × 2 mean of `count` row-major planes of ny × nx, NaN-aware: a coarse cell is the mean of its finite fine
 * cells, NaN when none is. An odd last row or column averages the cells it has.
 */
export function downsample(planes: Float32Array, count: number, ny: number, nx: number): Float32Array {
  const [my, mx] = [Math.ceil(ny / 2), Math.ceil(nx / 2)];
  const out = new Float32Array(count * my * mx);
  for (let k = 0; k < count; k++) {
    const plane = k * ny * nx;
    for (let y = 0; y < my; y++) {
      for (let x = 0; x < mx; x++) {
        let sum = 0;
        let n = 0;
        for (let dy = 0; dy < 2 && 2 * y + dy < ny; dy++) {
          for (let dx = 0; dx < 2 && 2 * x + dx < nx; dx++) {
            const v = planes[plane + (2 * y + dy) * nx + 2 * x + dx]!;
            if (!Number.isNaN(v)) {
              sum += v;
              n++;
            }
          }
        }
        out[(k * my + y) * mx + x] = n === 0 ? Number.NaN : sum / n;
      }
    }
  }
  return out;
}

/** The root group attributes that declare the levels: level 0 is the root variable, level n the variable in `n/`. */
export function multiscalesAttributes(variable: string, levels: number): Record<string, unknown> {
  const assetOf = (level: number) => (level === 0 ? variable : `${level}/${variable}`);
  return {
    zarr_conventions: [MULTISCALES_CONVENTION],
    multiscales: {
      layout: Array.from({ length: levels + 1 }, (_, level) =>
        level === 0
          ? { asset: assetOf(0), transform: { scale: [1, 1], translation: [0, 0] } }
          : {
              asset: assetOf(level),
              derived_from: assetOf(level - 1),
              transform: { scale: [2, 2], translation: [0, 0] },
            },
      ),
      resampling_method: 'average',
    },
  };
}
