import type { Logger } from 'pino';
import { InformerCache } from './informer-cache.ts';
import { objectKey, type KindRef, type KubeObject } from './objects.ts';
import type { Cluster, DeleteOptions } from './port.ts';

export interface InformerCachesOptions {
  cluster: Cluster;
  /** The namespaces cached, one cache each; every namespace in one cache when empty or absent. */
  namespaces?: string[];
  logger: Logger;
  rewatchMs?: number;
}

const kindKey = (kind: KindRef) => `${kind.apiVersion}/${kind.kind}`;

/**
 * A process's informer caches, one per kind and namespace (or one per kind over every namespace), shared by
 * whatever reads or watches that kind, as controller-runtime's manager shares one informer per kind. `cluster` is
 * the port this process writes through: each write to a cached kind tells the cache what it must see before a
 * fresh read answers from it (`InformerCache.catchUp`).
 */
export class InformerCaches {
  readonly #options: InformerCachesOptions;
  readonly #caches = new Map<string, InformerCache<KubeObject>>();
  readonly #abort = new AbortController();
  readonly cluster: Cluster;

  constructor(options: InformerCachesOptions) {
    this.#options = options;
    this.cluster = observedWrites(options.cluster, (kind, namespace, written) => {
      if (typeof written !== 'string') namespace ??= written.metadata.namespace;
      const cache = this.#caches.get(this.#cacheKey(kind, namespace));
      if (!cache) return;
      if (typeof written === 'string') cache.expect({ deleted: objectKey({ metadata: { namespace, name: written } }) });
      else if (written.metadata.resourceVersion !== undefined)
        cache.expect({ resourceVersion: Number(written.metadata.resourceVersion) });
    });
  }

  /** The namespaces one cache each stands for: `[undefined]` (all of them) unless the caches are per namespace. */
  get namespaces(): (string | undefined)[] {
    return this.#options.namespaces?.length ? this.#options.namespaces : [undefined];
  }

  #cacheKey(kind: KindRef, namespace: string | undefined): string {
    const scope = kind.namespaced && this.#options.namespaces?.length ? (namespace ?? '') : '*';
    return `${kindKey(kind)}@${scope}`;
  }

  /** The cache holding `kind` in `namespace` (the all-namespaces one unless caches are per namespace); not started. */
  of<T extends KubeObject>(kind: KindRef, namespace?: string): InformerCache<T> {
    const key = this.#cacheKey(kind, namespace);
    let cache = this.#caches.get(key);
    if (!cache) {
      const { cluster, logger, rewatchMs } = this.#options;
      const scoped = kind.namespaced && this.#options.namespaces?.length ? namespace : undefined;
      cache = new InformerCache({ cluster, kind, namespace: scoped, logger, signal: this.#abort.signal, rewatchMs });
      this.#caches.set(key, cache);
    }
    return cache as unknown as InformerCache<T>;
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
