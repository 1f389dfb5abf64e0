import type { Logger } from 'pino';
import type { Cluster } from '../../../core/cluster/port.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { inform } from '../../../core/cluster/informer.ts';
import { HttpError } from '../../errors.ts';
import { servedVersion, type ZarrVersion } from './zarr-keys.ts';

export interface ServedVersionsOptions {
  cluster: Cluster;
  namespace: string;
  storageRoot: string;
  logger: Logger;
}

/**
 * Which version `/zarr/{id}/` serves for each dataset, kept by a watch of the Datasets (list, then watch; a broken
 * watch resumes, a 410 relists), so that a chunk read costs no request to the resource store. A switch is seen
 * as soon as the watch delivers it: in embedded mode before the writer's call returns to its caller's next
 * request, on Kubernetes within the watch latency. Until the first list, or for a dataset it does not know, it
 * answers nothing and the caller reads the resource store.
 */
export class ServedVersions {
  readonly #versions = new Map<string, ZarrVersion>();
  readonly #abort = new AbortController();
  readonly #informer: { synced: Promise<void>; done: Promise<void> };

  constructor({ cluster, namespace, storageRoot, logger }: ServedVersionsOptions) {
    const keep = (dataset: Dataset) => {
      const id = dataset.metadata.name;
      const version = servedVersion(dataset, id, storageRoot);
      if (version instanceof HttpError) this.#versions.delete(id);
      else this.#versions.set(id, version);
    };
    this.#informer = inform<Dataset>({
      cluster,
      kind: datasetKind,
      namespace,
      logger,
      signal: this.#abort.signal,
      onList: (items) => {
        this.#versions.clear();
        items.forEach(keep);
      },
      onEvent: ({ type, object }) => (type === 'DELETED' ? this.#versions.delete(object.metadata.name) : keep(object)),
    });
  }

  /** Resolves once the first list is in. */
  get synced(): Promise<void> {
    return this.#informer.synced;
  }

  current(id: string): ZarrVersion | undefined {
    return this.#versions.get(id);
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#informer.done;
  }
}
