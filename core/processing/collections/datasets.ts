/**
 * `load_collection` over the managed datasets: a collection id is a Dataset's name (as `/collections` lists it),
 * opened at the version readers are served (`status.currentVersion`), or at the retained version a property filter
 * on `version` selects, in the API server and the worker alike.
 */
import type { ResourceReader } from '../jobs/pinned.ts';
import { datasetKind, type Dataset } from '../../resources/dataset/schema.ts';
import { resolveVersion, ZARR_FORMATS } from '../../resources/dataset/served-version.ts';
import { isSafeName, storeFile } from '../../stores/layout.ts';
import { openVersionStore } from '../../stores/version-store.ts';
import type { CollectionResolver } from '../services.ts';
import type { ReadBudget } from './read-budget.ts';
import { openStoredCube } from './stored-cube.ts';

export interface DatasetCollectionsOptions {
  cluster: ResourceReader;
  namespace: string;
  storageRoot: string;
  /** The cells the run may read, shared by every collection it loads. */
  budget?: ReadBudget;
}

export function datasetCollections({
  cluster,
  namespace,
  storageRoot,
  budget,
}: DatasetCollectionsOptions): CollectionResolver {
  return {
    async open(id, request) {
      if (!isSafeName(id)) return undefined;
      const { dataset, version } = resolveVersion(await cluster.get<Dataset>(datasetKind, id, namespace), {
        formats: ZARR_FORMATS,
        version: request.version,
      });
      if (!version) return undefined;
      const store = await openVersionStore(storeFile(storageRoot, version.path), version.snapshot);
      return {
        cube: await openStoredCube(store, budget),
        properties: { version: version.id, created: version.createdAt, format: dataset.spec.format },
      };
    },

    async versions(id) {
      if (!isSafeName(id)) return undefined;
      const dataset = await cluster.get<Dataset>(datasetKind, id, namespace);
      const { miss } = resolveVersion(dataset, { formats: ZARR_FORMATS });
      if (miss === 'dataset' || miss === 'format') return undefined;
      const current = dataset!.status?.currentVersion;
      const others = [...(dataset!.status?.versions ?? [])]
        .filter((v) => v.id !== current)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
        .map((v) => v.id);
      return current ? [current, ...others] : others;
    },
  };
}
