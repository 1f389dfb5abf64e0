import type { Cluster } from '../../../core/cluster/port.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { isSafeKey, resolveKey, storeFile } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import type { ImmutableFileCache } from './file-cache.ts';
import { fileEntity, type Entity } from './file-response.ts';
import type { IcechunkSnapshots } from './icechunk-snapshots.ts';

const METADATA_KEYS = new Set(['.zarray', '.zattrs', '.zgroup', '.zmetadata', 'zarr.json']);

/** The stored version `/zarr/{id}/` serves: a directory of files, or an Icechunk snapshot. */
export interface ZarrVersion {
  id: string;
  /** The version's directory (the Icechunk repository for a snapshot). */
  base: string;
  snapshot?: string;
}

export interface ZarrKeysContext {
  cluster: Cluster;
  namespace: string;
  storageRoot: string;
  files: ImmutableFileCache;
  icechunk: IcechunkSnapshots;
}

function contentTypeOf(key: string): string {
  return METADATA_KEYS.has(key.slice(key.lastIndexOf('/') + 1)) ? 'application/json' : 'application/octet-stream';
}

/**
 * The keys of datasets' current Zarr versions, whatever serves them: the `/zarr` route and its fast path
 * (`zarr-fast-path.ts`) answer from here, so both give the same bytes, validators and errors.
 */
export class ZarrKeys {
  readonly #context: ZarrKeysContext;

  constructor(context: ZarrKeysContext) {
    this.#context = context;
  }

  /** Looked up per request, so that a version switch takes effect at once. */
  async currentVersion(id: string): Promise<ZarrVersion> {
    const { cluster, namespace, storageRoot } = this.#context;
    const dataset = await cluster.get<Dataset>(datasetKind, id, namespace);
    if (!dataset) throw new HttpError('NotFound', `Dataset ${id} not found`);
    if (dataset.spec.format !== 'zarr' && dataset.spec.format !== 'icechunk')
      throw new HttpError('NotFound', `Dataset ${id} is not stored as Zarr`);
    const version = currentVersionOf(dataset);
    if (!version) throw new HttpError('NotFound', `Dataset ${id} has no stored version yet`);
    return { id: version.id, base: storeFile(storageRoot, version.path), snapshot: version.snapshot };
  }

  /**
   * The entity of one key (not a directory), or undefined when the version holds no such key. Throws 400 for a key
   * that could escape the version.
   */
  async entity(version: ZarrVersion, key: string): Promise<Entity | undefined> {
    if (!isSafeKey(key)) throw new HttpError('BadRequest', `invalid store key: ${JSON.stringify(key)}`);
    const contentType = contentTypeOf(key);
    if (version.snapshot) {
      const found = await this.#context.icechunk.get(version.base, version.snapshot, key);
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
    const path = resolveKey(version.base, key)!;
    const file = await this.#context.files.get(path);
    return file && fileEntity(path, file, { contentType, etagPrefix: version.id });
  }
}
