/**
 * The sparse table of zonal statistics: for each geometry, the cells of the cube's horizontal grid it covers and
 * their weights, computed once per geometry set and grid (geometries reprojected into the cube's CRS), then read
 * for every time step, band and chunk.
 */
import { mapGeometry } from '../../features/reproject.ts';
import type { Crs } from '../values/crs.ts';
import { transformBetween } from '../values/crs.ts';
import type { Geometry, MaybeEmptyFeature } from '../values/geojson.ts';
import { toGrid, type RasterGrid } from './grid.ts';
import { rasterize, type CellWeights, type Weighting } from './rasterize.ts';

export interface ZonalTable {
  grid: RasterGrid;
  /** Per geometry: its cells (row * nx + col, ascending) and weights; null for an empty geometry. */
  entries: (CellWeights | null)[];
}

/** Geometries from `from` into the grid's coordinates (through the cube's CRS). */
export function toGridGeometries(
  features: readonly MaybeEmptyFeature[],
  from: Crs | undefined,
  grid: RasterGrid,
): (Geometry | null)[] {
  const transform = transformBetween(from, grid.crs);
  return features.map((f) =>
    f.geometry === null
      ? null
      : mapGeometry(f.geometry, ([x, y]) => {
          const [wx, wy] = transform ? transform(x!, y!) : [x!, y!];
          return toGrid(grid, wx, wy);
        }),
  );
}

export function zonalTable(
  features: readonly MaybeEmptyFeature[],
  crs: Crs | undefined,
  grid: RasterGrid,
  weighting: Weighting,
): ZonalTable {
  const geometries = toGridGeometries(features, crs, grid);
  return {
    grid,
    entries: geometries.map((g) => (g === null ? null : rasterize(g, grid.nx, grid.ny, weighting))),
  };
}

/** One mask of the grid: 1 where a centre is inside any of the geometries. */
export function unionMask(geometries: readonly (Geometry | null)[], grid: RasterGrid): Uint8Array {
  const mask = new Uint8Array(grid.nx * grid.ny);
  for (const g of geometries) {
    if (g === null) continue;
    for (const cell of rasterize(g, grid.nx, grid.ny, 'centre').cells) mask[cell] = 1;
  }
  return mask;
}
