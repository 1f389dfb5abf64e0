import type { Cluster } from '../../../core/cluster/port.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { isSafeKey, resolveKey, storeFile } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { ByteBudgetLru } from '../cache/byte-budget-lru.ts';
import { readImmutableFile } from '../files/file-cache.ts';
import { fileEntity, type Entity } from '../files/file-response.ts';
import type { IcechunkSnapshots } from '../icechunk/icechunk-snapshots.ts';

const METADATA_KEYS = new Set(['.zarray', '.zattrs', '.zgroup', '.zmetadata', 'zarr.json']);
/** What one cached entity costs beyond its bytes, so that the cache also bounds how many it holds. */
const ENTRY_OVERHEAD_BYTES = 512;

/** The stored version `/zarr/{id}/` serves: a directory of files, or an Icechunk snapshot. */
export interface ZarrVersion {
  id: string;
  /** The version's directory (the Icechunk repository for a snapshot). */
  base: string;
  snapshot?: string;
}

/** The version of `dataset` that `/zarr/{id}/` serves, or the 404 that says why there is none. */
export function servedVersion(dataset: Dataset | undefined, id: string, storageRoot: string): ZarrVersion | HttpError {
  if (!dataset) return new HttpError('NotFound', `Dataset ${id} not found`);
  if (dataset.spec.format !== 'zarr' && dataset.spec.format !== 'icechunk')
    return new HttpError('NotFound', `Dataset ${id} is not stored as Zarr`);
  const version = currentVersionOf(dataset);
  if (!version) return new HttpError('NotFound', `Dataset ${id} has no stored version yet`);
  return { id: version.id, base: storeFile(storageRoot, version.path), snapshot: version.snapshot };
}

export interface ZarrKeysOptions {
  cluster: Cluster;
  namespace: string;
  storageRoot: string;
  icechunk: IcechunkSnapshots;
  /** Bytes of chunk files (and entities) held in memory; 128 MiB unless given. */
  maxBytes?: number;
  /** Files up to this size are held in memory; larger ones are streamed from disk (2 MiB unless given). */
  maxFileBytes?: number;
}

function contentTypeOf(key: string): string {
  return METADATA_KEYS.has(key.slice(key.lastIndexOf('/') + 1)) ? 'application/json' : 'application/octet-stream';
}

/**
 * The keys of datasets' current Zarr versions, whatever serves them: the `/zarr` route and its fast path
 * (`zarr-fast-path.ts`) answer from here, so both give the same bytes, validators and errors. Published versions
 * never change, so the entity of a key (validators, and the bytes of files up to `maxFileBytes`) is kept once
 * built, least recently used first out.
 */
export class ZarrKeys {
  readonly #options: ZarrKeysOptions;
  readonly #entities: ByteBudgetLru<Entity>;
  readonly #maxFileBytes: number;

  constructor(options: ZarrKeysOptions) {
    this.#options = options;
    this.#entities = new ByteBudgetLru(options.maxBytes ?? 128 << 20);
    this.#maxFileBytes = options.maxFileBytes ?? 2 << 20;
  }

  /** Read from the resource store on each call, so that a version switch takes effect at once. */
  async currentVersion(id: string): Promise<ZarrVersion> {
    const { cluster, namespace, storageRoot } = this.#options;
    const version = servedVersion(await cluster.get<Dataset>(datasetKind, id, namespace), id, storageRoot);
    if (version instanceof HttpError) throw version;
    return version;
  }

  /** The entity of a file of a plain store already in memory, found without waiting; never for a snapshot. */
  cachedEntity(version: ZarrVersion, key: string): Entity | undefined {
    // Only keys that passed `isSafeKey` are ever stored, so a hit needs no check.
    return version.snapshot ? undefined : this.#entities.get(`${version.base}\0${key}`);
  }

  /**
   * The entity of one key (not a directory), or undefined when the version holds no such key. Throws 400 for a key
   * that could escape the version.
   */
  async entity(version: ZarrVersion, key: string): Promise<Entity | undefined> {
    const cached = this.cachedEntity(version, key);
    if (cached) return cached;
    if (!isSafeKey(key)) throw new HttpError('BadRequest', `invalid store key: ${JSON.stringify(key)}`);
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
    const path = resolveKey(version.base, key)!;
    const file = await readImmutableFile(path, this.#maxFileBytes);
    if (!file) return undefined;
    const entity = fileEntity(path, file, { contentType, etagPrefix: version.id });
    this.#entities.set(`${version.base}\0${key}`, entity, (file.bytes?.length ?? 0) + ENTRY_OVERHEAD_BYTES);
    return entity;
  }
}
