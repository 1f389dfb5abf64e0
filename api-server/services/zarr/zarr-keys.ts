import type { Cluster } from '../../../core/cluster/port.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { resolveVersion, ZARR_FORMATS } from '../../../core/resources/dataset/served-version.ts';
import { isSafeKey, resolveKey, storeFile } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import type { Entity } from '../files/entity.ts';
import type { ImmutableFileCache } from '../files/file-cache.ts';
import { keyOutsideStore } from '../files/store-key.ts';
import type { IcechunkSnapshots } from '../icechunk/icechunk-snapshots.ts';
import { versionNotFound, type ApiVersionRequest, type DatasetRef } from '../resources/served-version.ts';

const ZARR_READER: ApiVersionRequest = { formats: ZARR_FORMATS, formatName: 'Zarr' };

const METADATA_KEYS = new Set(['.zarray', '.zattrs', '.zgroup', '.zmetadata', 'zarr.json']);

/** The stored version `/zarr/{id}/` serves: a directory of files, or an Icechunk snapshot. */
export interface ZarrVersion {
  id: string;
  /** The version's directory (the Icechunk repository for a snapshot). */
  base: string;
  snapshot?: string;
}

/**
 * The version of `dataset` that `/zarr/{id}/` serves (`/zarr/{id}@{named}/` a retained one), or the 404 that says
 * why there is none.
 */
export function servedVersion(
  dataset: Dataset | undefined,
  id: string,
  storageRoot: string,
  named?: string,
): ZarrVersion | HttpError {
  const request = { ...ZARR_READER, version: named };
  const { version, miss } = resolveVersion(dataset, request);
  if (miss) return versionNotFound(id, miss, request);
  return { id: version.id, base: storeFile(storageRoot, version.path), snapshot: version.snapshot };
}

export interface ZarrKeysOptions {
  cluster: Cluster;
  namespace: string;
  storageRoot: string;
  /** Where the files of plain stores come from. */
  files: ImmutableFileCache;
  /** Where the keys of Icechunk snapshots come from. */
  icechunk: IcechunkSnapshots;
}

function contentTypeOf(key: string): string {
  return METADATA_KEYS.has(key.slice(key.lastIndexOf('/') + 1)) ? 'application/json' : 'application/octet-stream';
}

/**
 * The keys of datasets' retained Zarr versions, whatever serves them: the `/zarr` route and its fast path
 * (`zarr-fast-path.ts`) answer from here, so both give the same bytes, validators and errors. Published versions
 * never change, so the entity of a key of a plain store is kept in the file cache once built, and the bytes of a
 * snapshot's key in the snapshot cache.
 */
export class ZarrKeys {
  readonly #options: ZarrKeysOptions;

  constructor(options: ZarrKeysOptions) {
    this.#options = options;
  }

  /**
   * The served version of dataset `id`, or the retained one `ref.version` names. Read from the resource store on
   * each call, so that a version switch takes effect at once.
   */
  async version({ id, version: named }: DatasetRef): Promise<ZarrVersion> {
    const { cluster, namespace, storageRoot } = this.#options;
    const version = servedVersion(await cluster.get<Dataset>(datasetKind, id, namespace), id, storageRoot, named);
    if (version instanceof HttpError) throw version;
    return version;
  }

  /** The entity of a file of a plain store already in memory, found without waiting; never for a snapshot. */
  cachedEntity(version: ZarrVersion, key: string): Entity | undefined {
    // For a safe key this is the path `resolveKey` gives. The cache holds normalized paths only (made by `join`),
    // which no key with an empty, `.` or `..` segment spells, and no stored path holds a backslash or NUL: a key
    // that could escape the version never finds an entry, so a hit needs no check.
    return version.snapshot ? undefined : this.#options.files.peek(`${version.base}/${key}`);
  }

  /**
   * The entity of one key (not a directory), or undefined when the version holds no such key. Throws 422 for a key
   * that could escape the version.
   */
  async entity(version: ZarrVersion, key: string): Promise<Entity | undefined> {
    const cached = this.cachedEntity(version, key);
    if (cached) return cached;
    if (!isSafeKey(key)) throw keyOutsideStore(key);
    const contentType = contentTypeOf(key);
    if (version.snapshot) {
      const found = await this.#options.icechunk.get(version.base, version.snapshot, key);
      return (
        found && {
          size: found.bytes.length,
          mtime: found.writtenAt,
          etag: `"${version.snapshot}"`,
          contentType,
          bytes: found.bytes,
        }
      );
    }
    return this.#options.files.entity(resolveKey(version.base, key)!, { contentType, etagPrefix: version.id });
  }
}
