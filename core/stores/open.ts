import { unsplittableFormat, unsupportedFormat, zarrVersionOf } from './capabilities.ts';
import { openIcechunkVersion } from './icechunk/version.ts';
import { icechunkDir, icechunkPath } from './layout.ts';
import { netcdfCubeSink, netcdfSpliceSink } from './netcdf/version.ts';
import type { RasterCubeDescription } from './raster-cube.ts';
import { openStagedVersion } from './staged-version.ts';
import type { CubeSink, PreviousVersion, Splice, StoreFormat, VersionParts, VersionWriter } from './store.ts';
import { zarrCubeSink, zarrSpliceSink, zarrVersionParts } from './zarr/version.ts';

/**
 * The backend choice: which backend writes a version of a Dataset in its format. Backends never import this file.
 */

function refuse(why: string | undefined): void {
  if (why) throw new Error(why);
}

/**
 * A sink writing a cube in a directory format (Zarr v2 or v3, NetCDF-4) into `dir`; with `previous`, a version
 * directory whose periods the sink already holds where `splice` puts them among `description.periods` (first,
 * when absent), so that it takes only the fetched periods.
 */
export async function openCubeSink(
  dir: string,
  format: StoreFormat,
  description: RasterCubeDescription,
  previous?: string,
  splice?: Splice,
): Promise<CubeSink> {
  refuse(unsupportedFormat(format));
  if (format.format === 'netcdf')
    return previous ? netcdfSpliceSink(dir, previous, description, splice) : netcdfCubeSink(dir, description);
  if (format.format !== 'zarr') throw new Error(`a ${format.format} version is not a directory`);
  const zarrVersion = zarrVersionOf(format);
  return previous
    ? zarrSpliceSink(dir, previous, zarrVersion, description, splice)
    : zarrCubeSink(dir, zarrVersion, description);
}

/**
 * Opens a new version of a dataset. Zarr and NetCDF versions are directories written under `staging/` and
 * published by one rename into `versions/`; Icechunk versions are snapshots of the dataset's repository. A run
 * that keeps what is stored names the version it splices into (`previous`): the sink holds its periods already,
 * where `previous.splice` puts them, so only the fetched periods are given to it.
 */
export async function openVersionWriter(
  storageRoot: string,
  datasetId: string,
  versionId: string,
  format: StoreFormat,
  previous: PreviousVersion | undefined,
  description: RasterCubeDescription,
): Promise<VersionWriter> {
  refuse(unsupportedFormat(format));
  if (format.format === 'icechunk')
    return openIcechunkVersion(
      icechunkDir(storageRoot, datasetId),
      icechunkPath(datasetId),
      versionId,
      description,
      previous,
    );
  return openStagedVersion(storageRoot, datasetId, versionId, (staging) =>
    openCubeSink(staging, format, description, previous?.dir, previous?.splice),
  );
}

/** A version written whole by `count` workers, each one part of its periods (Zarr only: `unsplittableFormat`). */
export function versionParts(
  storageRoot: string,
  datasetId: string,
  versionId: string,
  format: StoreFormat,
  count: number,
  description: RasterCubeDescription,
): VersionParts {
  refuse(unsupportedFormat(format) ?? unsplittableFormat(format));
  return zarrVersionParts(storageRoot, datasetId, versionId, zarrVersionOf(format), count, description);
}
