import { formatPeriod, nextPeriod, parsePeriod, type Period } from '../../core/periods/index.ts';
import type { RasterGrid } from '../../core/providers/raster.ts';
import { readCommittedCube } from '../../core/stores/committed-cube.ts';
import { icechunkPath, isSafeName, storeFile } from '../../core/stores/layout.ts';
import { RunError } from '../../core/runs/errors.ts';
import type { IngestionInput } from './ingestion-input.ts';

/** The committed version a sync continues: where it is, and the periods and grid its files hold. */
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

/** The base's periods followed by the fetched ones, which must start right after the base's last. */
export function continuedPeriods(base: SyncBase, fetched: Period[]): Period[] {
  const last = base.periods.at(-1);
  const expected = last && formatPeriod(nextPeriod(last));
  if (last && fetched[0] && formatPeriod(fetched[0]) !== expected)
    throw new RunError(
      'InvalidRequest',
      `the store ends at ${formatPeriod(last)}; a sync must continue at ${expected}, not ${formatPeriod(fetched[0])}`,
    );
  return [...base.periods, ...fetched];
}

/** A sync never changes the grid under stored periods: a provider now delivering another grid is refused. */
export function checkSameGrid(base: SyncBase, grid: RasterGrid): void {
  const same = (a: Float64Array, b: Float64Array) =>
    a.length === b.length && a.every((v, i) => Math.abs(v - b[i]!) < 1e-9);
  if (!same(base.lat, grid.lat) || !same(base.lon, grid.lon))
    throw new RunError(
      'SpatialShapeChanged',
      `the provider now delivers a ${grid.lat.length} x ${grid.lon.length} grid, the store holds ` +
        `${base.lat.length} x ${base.lon.length} (or other coordinates); ingest again with overwrite to replace it`,
    );
}
