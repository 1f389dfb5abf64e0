import type { Logger } from 'pino';
import type { KindRef, KubeObject } from '../../../core/cluster/objects.ts';
import type { Cluster, DeleteOptions, ListOptions } from '../../../core/cluster/port.ts';
import { ResourceCache } from './resource-cache.ts';

export interface ResourceCachesOptions {
  cluster: Cluster;
  namespace: string;
  logger: Logger;
  catchUpMs?: number;
}

const kindKey = (kind: KindRef) => `${kind.apiVersion}/${kind.kind}`;

/**
 * The API server's informer caches, one per kind, shared by every route that lists it. `cluster` is the port the
 * API server writes through: each write it makes to a cached kind tells that kind's cache what it must see before
 * a list answers (read-your-writes, see `ResourceCache`).
 */
export class ResourceCaches {
  readonly #options: ResourceCachesOptions;
  readonly #caches = new Map<string, ResourceCache<KubeObject>>();
  readonly #abort = new AbortController();
  readonly cluster: Cluster;

  constructor(options: ResourceCachesOptions) {
    this.#options = options;
    this.cluster = observedWrites(options.cluster, (kind, namespace, written) => {
      if ((namespace ?? this.#options.namespace) !== this.#options.namespace) return;
      const cache = this.#caches.get(kindKey(kind));
      if (!cache) return;
      if (typeof written === 'string') cache.expect({ deleted: written });
      else if (written.metadata.resourceVersion !== undefined)
        cache.expect({ resourceVersion: Number(written.metadata.resourceVersion) });
    });
  }

  /** The cache of this kind (started on its first read). */
  of<T extends KubeObject>(kind: KindRef): ResourceCache<T> {
    let cache = this.#caches.get(kindKey(kind));
    if (!cache) {
      const { cluster, namespace, logger, catchUpMs } = this.#options;
      cache = new ResourceCache({ cluster, kind, namespace, logger, signal: this.#abort.signal, catchUpMs });
      this.#caches.set(kindKey(kind), cache);
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
    const cached = new Set(kinds.map(kindKey));
    const cacheFor = (kind: KindRef, namespace: string | undefined) =>
      cached.has(kindKey(kind)) && (namespace ?? this.#options.namespace) === this.#options.namespace
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

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all([...this.#caches.values()].map((cache) => cache.stopped()));
  }
}

/**
 * The cluster port with every write reported once it returned: the object as stored, or for a deletion that left
 * nothing behind (no finalizers), its name.
 */
function observedWrites(
  cluster: Cluster,
  wrote: (kind: KindRef, namespace: string | undefined, written: KubeObject | string) => void,
): Cluster {
  const report = <T extends KubeObject>(kind: KindRef, namespace: string | undefined, written: T): T => {
    wrote(kind, namespace, written);
    return written;
  };
  return {
    get: (kind, name, namespace) => cluster.get(kind, name, namespace),
    list: (kind, options) => cluster.list(kind, options),
    watch: (kind, options) => cluster.watch(kind, options),
    create: async (kind, object, options) =>
      report(kind, object.metadata.namespace, await cluster.create(kind, object, options)),
    update: async (kind, object, options) =>
      report(kind, object.metadata.namespace, await cluster.update(kind, object, options)),
    apply: async (kind, object, options) =>
      report(kind, object.metadata.namespace, await cluster.apply(kind, object, options)),
    updateStatus: async (kind, object, options) =>
      report(kind, object.metadata.namespace, await cluster.updateStatus(kind, object, options)),
    patch: async (kind, name, patch, namespace, options) =>
      report(kind, namespace, await cluster.patch(kind, name, patch, namespace, options)),
    patchStatus: async (kind, name, patch, namespace, options) =>
      report(kind, namespace, await cluster.patchStatus(kind, name, patch, namespace, options)),
    delete: async <T extends KubeObject>(kind: KindRef, name: string, namespace?: string, options?: DeleteOptions) => {
      const left = await cluster.delete<T>(kind, name, namespace, options);
      wrote(kind, namespace, left ?? name);
      return left;
    },
  };
}
