import { type Dataset } from '../../../core/resources/dataset/schema.ts';
import { HttpError } from '../../errors.ts';
import type { ResourceCache } from '../resources/resource-cache.ts';
import type { DatasetRef } from '../resources/served-version.ts';
import { servedVersion, type ZarrVersion } from './zarr-keys.ts';

export interface ServedVersionsOptions {
  /** The API server's Dataset cache (`services/resources`), which the list routes read too. */
  datasets: ResourceCache<Dataset>;
  storageRoot: string;
}

/**
 * Which version `/zarr/{id}/` serves for each dataset (and `/zarr/{id}@{version}/` a retained one), read from the shared Dataset informer cache (list, then
 * watch; a broken watch resumes, a 410 relists), so that a chunk read costs no request to the resource store. A
 * switch is seen as soon as the watch delivers it: in embedded mode before the writer's call returns to its
 * caller's next request, on Kubernetes within the watch latency. Until the first list, or for a dataset it does not
 * know, it answers nothing and the caller reads the resource store.
 */
export class ServedVersions {
  readonly #datasets: ResourceCache<Dataset>;
  readonly #storageRoot: string;
  /**
   * The versions of each cached object, worked out once per name (`''` the served one): the cache replaces an
   * object on a change, never edits it.
   */
  readonly #versions = new WeakMap<Dataset, Map<string, ZarrVersion | undefined>>();

  constructor({ datasets, storageRoot }: ServedVersionsOptions) {
    this.#datasets = datasets;
    this.#storageRoot = storageRoot;
    // Started now rather than by the first read, so that the first chunks need not wait for the list.
    void datasets.start();
  }

  /** The version `ref` reads: the served one, or the retained one it names; undefined when not known here. */
  version({ id, version: named }: DatasetRef): ZarrVersion | undefined {
    const dataset = this.#datasets.peek(id);
    if (!dataset) return undefined;
    let versions = this.#versions.get(dataset);
    if (!versions) this.#versions.set(dataset, (versions = new Map()));
    const name = named ?? '';
    if (!versions.has(name)) {
      const version = servedVersion(dataset, id, this.#storageRoot, named);
      versions.set(name, version instanceof HttpError ? undefined : version);
    }
    return versions.get(name);
  }
}
