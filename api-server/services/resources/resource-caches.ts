import type { Logger } from 'pino';
import type { InformerCache } from '../../../core/cluster/informer-cache.ts';
import { InformerCaches } from '../../../core/cluster/informer-caches.ts';
import type { KindRef, KubeObject } from '../../../core/cluster/objects.ts';
import type { Cluster, ListOptions } from '../../../core/cluster/port.ts';
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

  /**
   * The cluster port with reads of `kinds` in the API server's namespace answered by their caches: `get` (a miss
   * still asks the cluster) and `list` without a label selector. Every other call goes to `cluster`. For the hot
   * paths that read the same few objects on every request (a bearer token's client, user and authorization), which
   * must not cost a request to the store each. Objects read are the caches' own, not copies.
   */
  readingThrough(kinds: readonly KindRef[]): Cluster {
    const cacheFor = (kind: KindRef, namespace: string | undefined) =>
      kinds.some((k) => k.apiVersion === kind.apiVersion && k.kind === kind.kind) &&
      (namespace ?? this.#options.namespace) === this.#options.namespace
        ? this.of(kind)
        : undefined;
    const cluster = this.cluster;
    return {
      ...cluster,
      get: (kind, name, namespace) => cacheFor(kind, namespace)?.get(name) ?? cluster.get(kind, name, namespace),
      list: async <T extends KubeObject>(kind: KindRef, options?: ListOptions) => {
        const cache = options?.labelSelector === undefined ? cacheFor(kind, options?.namespace) : undefined;
        if (!cache) return cluster.list<T>(kind, options);
        const items = [...(await cache.list())] as T[];
        return { items, resourceVersion: cache.resourceVersion };
      },
    } as Cluster;
  }

  /** A stamp of these kinds' caches together (see `ResourceCache.stamp`), undefined when any has none. */
  stampOf(kinds: readonly KindRef[]): () => string | undefined {
    const caches = kinds.map((kind) => this.of(kind));
    return () => {
      let stamp = '';
      for (const cache of caches) {
        const version = cache.stamp;
        if (version === undefined) return undefined;
        stamp += `${version}.`;
      }
      return stamp;
    };
  }

  stop(): Promise<void> {
    return this.#informers.stop();
  }
}
