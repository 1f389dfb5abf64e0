import { currentVersionOf, type Dataset, type DatasetSpec, type DatasetVersion } from './schema.ts';

type DatasetFormat = DatasetSpec['format'];

/** The formats whose versions open as Zarr stores: a directory of keys, or an Icechunk snapshot. */
export const ZARR_FORMATS: readonly DatasetFormat[] = ['zarr', 'icechunk'];

/**
 * What a reader asks of a dataset. Today every reader reads the version readers are served
 * (`status.currentVersion`); a reader that names a version of its own will ask for it here.
 */
export interface VersionRequest {
  /** The formats the reader opens; a dataset stored in another has nothing for it. Any format when absent. */
  formats?: readonly DatasetFormat[];
}

/** Why a reader gets no version: no such dataset, a format it does not open, or no version stored yet. */
export type VersionMiss = 'dataset' | 'format' | 'version';

export type ResolvedVersion =
  | { dataset: Dataset; version: DatasetVersion; miss?: undefined }
  | { dataset?: undefined; version?: undefined; miss: VersionMiss };

/**
 * The version of `dataset` a reader reads, or why there is none, checked in that order. Every reader of stored
 * versions (the Zarr keys, tiles, Icechunk repositories, downloads, the processing collections) resolves here,
 * so they agree on which version is served and on why there is none.
 */
export function resolveVersion(dataset: Dataset | undefined, request: VersionRequest = {}): ResolvedVersion {
  if (!dataset) return { miss: 'dataset' };
  if (request.formats && !request.formats.includes(dataset.spec.format)) return { miss: 'format' };
  const version = currentVersionOf(dataset);
  return version ? { dataset, version } : { miss: 'version' };
}
