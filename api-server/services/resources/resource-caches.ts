import type { Logger } from 'pino';
import type { InformerCache } from '../../../core/cluster/informer-cache.ts';
import { InformerCaches } from '../../../core/cluster/informer-caches.ts';
import type { KindRef, KubeObject } from '../../../core/cluster/objects.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { ResourceCache } from './resource-cache.ts';

export interface ResourceCachesOptions {
  cluster: Cluster;
  namespace: string;
  logger: Logger;
  catchUpMs?: number;
}

/**
 * The API server's informer caches (`core/cluster/informer-caches.ts`), one per kind in its namespace, shared by
 * every route that lists it. `cluster` is the port the API server writes through: each write it makes to a cached
 * kind tells that kind's cache what it must see before a list answers (read-your-writes, see `ResourceCache`).
 */
export class ResourceCaches {
  readonly #options: ResourceCachesOptions;
  readonly #informers: InformerCaches;
  readonly #caches = new Map<InformerCache<KubeObject>, ResourceCache<KubeObject>>();
  readonly cluster: Cluster;

  constructor(options: ResourceCachesOptions) {
    this.#options = options;
    this.#informers = new InformerCaches({
      cluster: options.cluster,
      namespaces: [options.namespace],
      logger: options.logger,
    });
    this.cluster = this.#informers.cluster;
  }

  /** The cache of this kind (started on its first read). */
  of<T extends KubeObject>(kind: KindRef): ResourceCache<T> {
    const informer = this.#informers.of<KubeObject>(kind, this.#options.namespace);
    let cache = this.#caches.get(informer);
    if (!cache) {
      const { cluster, namespace, catchUpMs } = this.#options;
      cache = new ResourceCache(informer, { cluster, namespace, catchUpMs });
      this.#caches.set(informer, cache);
    }
    return cache as unknown as ResourceCache<T>;
  }

  stop(): Promise<void> {
    return this.#informers.stop();
  }
}
