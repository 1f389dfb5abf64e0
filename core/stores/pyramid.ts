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

/**
 * The arrays of a store's levels as its root attributes declare them (`multiscalesAttributes`), level 0 first:
 * `[variable]` for a store without levels. A layout that is not the chain this module writes (level 0 the root's
 * variable, each next level derived from the one before it) is read as no levels.
 */
export function levelAssets(attributes: Record<string, unknown>, variable: string): string[] {
  const layout = (attributes.multiscales as { layout?: unknown } | undefined)?.layout;
  if (!Array.isArray(layout) || layout.length < 2) return [variable];
  const assets = layout.map((entry) => (entry as { asset?: unknown } | null)?.asset);
  const chained = layout.every(
    (entry, level) =>
      typeof assets[level] === 'string' &&
      (level === 0 ? assets[0] === variable : (entry as { derived_from?: unknown }).derived_from === assets[level - 1]),
  );
  return chained ? (assets as string[]) : [variable];
}

/**
 * The plane of the coarsest level of `grid` whose cells are at most `cellSize` degrees, and that level's grid: the
 * values the writer stores in the level (the same means, in the same order), or the plane itself when no level is
 * that coarse or the grid has none.
 */
export function levelPlane(values: Float32Array, grid: RasterGrid, cellSize: number) {
  let level = { grid, values };
  for (const coarser of pyramidGrids(grid)) {
    if (coarser.resolution > cellSize * (1 + 1e-9)) break;
    level = {
      grid: coarser,
      values: downsample(level.values, 1, level.grid.lat.length, level.grid.lon.length),
    };
  }
  return level;
}
