import { formatPeriod, nextPeriod, parsePeriod, periodRange, type Period } from '../../core/periods/index.ts';
import type { RasterGrid } from '../../core/stores/raster-grid.ts';
import { readCommittedCube } from '../../core/stores/committed-cube.ts';
import { icechunkPath, isSafeName, storeFile } from '../../core/stores/layout.ts';
import { RunError } from '../../core/runs/errors.ts';
import type { Splice } from '../../core/stores/store.ts';
import type { IngestionInput } from './ingestion-input.ts';

/** The committed version a run splices its fetched periods into (a sync, or an ingestion keeping what is stored): where it is, and the periods and grid its files hold. */
export interface SyncBase {
  dir: string;
  /** The snapshot of an Icechunk version (`dir` is then the repository). */
  snapshot?: string;
  periods: Period[];
  lat: Float64Array;
  lon: Float64Array;
}

/** Whether `path` is where a version of `datasetId` lives: a version directory, or the Icechunk repository. */
function isVersionPath(path: string, datasetId: string, icechunk: boolean): boolean {
  if (icechunk) return path === icechunkPath(datasetId);
  const [root, id, versions, version, ...rest] = path.split('/');
  return (
    root === 'datasets' && id === datasetId && versions === 'versions' && rest.length === 0 && isSafeName(version ?? '')
  );
}

/** Reads the version `input.base` names, which must be a version of the dataset the run writes. */
export async function readSyncBase(input: IngestionInput): Promise<SyncBase | undefined> {
  if (!input.base) return undefined;
  const type = input.dataset.periodType;
  const icechunk = input.dataset.format === 'icechunk';
  if (!isVersionPath(input.base, input.datasetId, icechunk) || (icechunk && !input.baseSnapshot))
    throw new RunError('InvalidInput', `${input.base} is not a version of dataset ${input.datasetId}`);
  if (!type) throw new RunError('InvalidRequest', `dataset ${input.datasetId} has no period type`);
  const dir = storeFile(input.storageRoot, input.base);
  const cube = await readCommittedCube(dir, input.dataset.format, type, input.baseSnapshot);
  return {
    dir,
    ...(input.baseSnapshot && { snapshot: input.baseSnapshot }),
    periods: cube.periods.map((p) => parsePeriod(type, p)),
    lat: cube.lat,
    lon: cube.lon,
  };
}

/**
 * The periods of the new version made of the base and the fetched periods: their union, which must have no gap
 * (the planner fetches what lies between), and where each sits in it.
 */
export function unionOf(base: SyncBase, fetched: Period[]): { periods: Period[]; splice: Splice } {
  const [stored, wanted] = [base.periods, fetched];
  const time = (p: Period | undefined) => p?.start.getTime() ?? Number.NaN;
  const [storedFirst, storedLast] = [stored[0], stored.at(-1)];
  const [fetchedFirst, fetchedLast] = [wanted[0], wanted.at(-1)];
  if (!storedFirst || !storedLast || !fetchedFirst || !fetchedLast)
    throw new RunError('InvalidRequest', 'a version is made of at least one stored and one fetched period');
  const gapAfter = time(fetchedFirst) > time(nextPeriod(storedLast));
  const gapBefore = time(nextPeriod(fetchedLast)) < time(storedFirst);
  if (gapAfter || gapBefore)
    throw new RunError(
      'InvalidRequest',
      `the store holds ${formatPeriod(storedFirst)} to ${formatPeriod(storedLast)}; fetched periods ` +
        `${formatPeriod(fetchedFirst)} to ${formatPeriod(fetchedLast)} would leave a gap`,
    );
  const first = time(fetchedFirst) < time(storedFirst) ? fetchedFirst : storedFirst;
  const last = time(fetchedLast) > time(storedLast) ? fetchedLast : storedLast;
  const periods = periodRange(first.type, formatPeriod(first), formatPeriod(last));
  const indexOf = (p: Period) => periods.findIndex((q) => q.start.getTime() === p.start.getTime());
  const from = indexOf(fetchedFirst);
  return { periods, splice: { offset: indexOf(storedFirst), from, to: from + wanted.length } };
}

/** A sync never changes the grid under stored periods: a provider now delivering another grid is refused. */
export function checkSameGrid(base: SyncBase, grid: RasterGrid): void {
  const same = (a: Float64Array, b: Float64Array) =>
    a.length === b.length && a.every((v, i) => Math.abs(v - b[i]!) < 1e-9);
  if (!same(base.lat, grid.lat) || !same(base.lon, grid.lon))
    throw new RunError(
      'SpatialShapeChanged',
      `the provider now delivers a ${grid.lat.length} x ${grid.lon.length} grid, the store holds ` +
        `${base.lat.length} x ${base.lon.length} (or other coordinates); ingest again with replace to narrow the dataset to the new grid`,
    );
}
