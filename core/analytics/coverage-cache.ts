/**
 * Each org unit's cells and coverage fractions on a grid, computed once per stored feature collection file and
 * grid and kept on the store (`analytics/coverage/<digest>.json`), so a table's next build, and every table over
 * the same collection and grid, costs a weighted sum per time step and no polygon clipping.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../files/durable.ts';
import type { RasterGrid } from '../processing/zonal/grid.ts';
import { zonalTable } from '../processing/zonal/table.ts';
import type { Crs } from '../processing/values/crs.ts';
import type { MaybeEmptyFeature } from '../processing/values/geojson.ts';
import type { OrgUnitCells } from './build.ts';

export const coverageDir = (root: string) => join(root, 'analytics', 'coverage');

export function coverageKey(featureCollectionPath: string, grid: RasterGrid): string {
  const { nx, ny, x0, dx, y0, dy, crs } = grid;
  return createHash('sha256')
    .update(JSON.stringify({ featureCollectionPath, grid: { nx, ny, x0, dx, y0, dy, crs } }))
    .digest('hex');
}

export interface CoverageLookup {
  orgUnits: OrgUnitCells[];
  /** Whether the fractions came from the cache. */
  cached: boolean;
}

export async function orgUnitCoverage(
  root: string,
  featureCollectionPath: string,
  features: readonly MaybeEmptyFeature[],
  crs: Crs | undefined,
  grid: RasterGrid,
): Promise<CoverageLookup> {
  const file = join(coverageDir(root), `${coverageKey(featureCollectionPath, grid)}.json`);
  const stored = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as OrgUnitCells[],
    () => undefined,
  );
  if (stored) return { orgUnits: stored, cached: true };
  const { entries } = zonalTable(features, crs, grid, 'coverage');
  const orgUnits = features.map((feature, i) => ({ id: String(feature.id ?? i), cells: entries[i] ?? null }));
  await mkdir(coverageDir(root), { recursive: true });
  await writeFileAtomic(file, JSON.stringify(orgUnits));
  return { orgUnits, cached: false };
}
