import { currentVersionOf, type Dataset, type DatasetSpec, type DatasetVersion } from './schema.ts';

type DatasetFormat = DatasetSpec['format'];

/** The formats whose versions open as Zarr stores: a directory of keys, or an Icechunk snapshot. */
export const ZARR_FORMATS: readonly DatasetFormat[] = ['zarr', 'icechunk'];

/** What a reader asks of a dataset: the version readers are served (`status.currentVersion`), or one it names. */
export interface VersionRequest {
  /** The formats the reader opens; a dataset stored in another has nothing for it. Any format when absent. */
  formats?: readonly DatasetFormat[];
  /** A retained version the reader names: its id, or the Icechunk snapshot holding it. The served one when absent. */
  version?: string;
}

/**
 * Why a reader gets no version: no such dataset, a format it does not open, no version stored yet, or no retained
 * version of the name it gave.
 */
export type VersionMiss = 'dataset' | 'format' | 'version' | 'named';

export type ResolvedVersion =
  | { dataset: Dataset; version: DatasetVersion; miss?: undefined }
  | { dataset?: undefined; version?: undefined; miss: VersionMiss };

/** The retained version of `dataset` that `name` names: by its id, or by the Icechunk snapshot that holds it. */
export function namedVersionOf(dataset: Dataset, name: string): DatasetVersion | undefined {
  const versions = dataset.status?.versions ?? [];
  return versions.find((v) => v.id === name) ?? versions.find((v) => v.snapshot === name);
}

/**
 * The version of `dataset` a reader reads, or why there is none, checked in that order. Every reader of stored
 * versions (the Zarr keys, tiles, Icechunk repositories, downloads, thumbnails, the processing collections)
 * resolves here, so they agree on which version is served, on what a version name means, and on why there is none.
 */
export function resolveVersion(dataset: Dataset | undefined, request: VersionRequest = {}): ResolvedVersion {
  if (!dataset) return { miss: 'dataset' };
  if (request.formats && !request.formats.includes(dataset.spec.format)) return { miss: 'format' };
  if (request.version !== undefined) {
    const named = namedVersionOf(dataset, request.version);
    return named ? { dataset, version: named } : { miss: 'named' };
  }
  const version = currentVersionOf(dataset);
  return version ? { dataset, version } : { miss: 'version' };
}
