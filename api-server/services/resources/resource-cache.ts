import type { InformerCache } from '../../../core/cluster/informer-cache.ts';
import { objectKey, type KubeObject } from '../../../core/cluster/objects.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { byName, placeInOrder, sortForPaging, type PageOrder } from '../../pagination.ts';

export interface ResourceCacheOptions {
  cluster: Cluster;
  namespace: string;
  /** How long a list waits for the cache to see this process's own writes before it reads the cluster instead. */
  catchUpMs?: number;
}

/**
 * One kind's objects in the API server's namespace, as the list routes read them: an informer cache of the core
 * (`core/cluster/informer-cache.ts`, list then watch) so that list routes cost no request to the resource store,
 * started on its first read and sorted in each order read.
 *
 * Reads see this process's writes: the writes made through `ResourceCaches.cluster` leave an expectation in the
 * informer cache, and a list waits until the watch has delivered them; past `catchUpMs` it reads the cluster
 * instead, as it does while the first list is not in. Other writers' changes appear as the watch delivers them.
 */
/** Past this many changes between two reads of an order, a new sort is cheaper than moving each into place. */
const MOVED_ONE_BY_ONE = 64;

export class ResourceCache<T extends KubeObject> {
  readonly #options: ResourceCacheOptions;
  readonly #informer: InformerCache<T>;
  /**
   * The objects in each order read, as last answered, and the objects changed since. The next read answers a copy
   * with each changed object moved into place (a key never changes over an object's life), or a new sort when more
   * than `MOVED_ONE_BY_ONE` changed; an array once answered is never changed (derived.ts keys on it).
   */
  #sorted = new Map<PageOrder<T>, { items: T[]; changed: T[] }>();

  constructor(informer: InformerCache<T>, options: ResourceCacheOptions) {
    this.#informer = informer;
    this.#options = options;
    informer.subscribe((objects) => {
      for (const [order, sorted] of this.#sorted) {
        if (sorted.changed.length + objects.length > MOVED_ONE_BY_ONE) this.#sorted.delete(order);
        else sorted.changed.push(...objects);
      }
    });
  }

  /** Starts the informer (else started by the first read); resolves after its first list. */
  start(): Promise<void> {
    return this.#informer.start();
  }

  /** Every object in `order` (by name unless told), as of at least this process's last write of the kind. */
  async list(order: PageOrder<T> = byName): Promise<readonly T[]> {
    if (!(await this.#informer.catchUp(this.#options.catchUpMs ?? 2_000))) {
      // The store's own answer, or its error (503 when it is unavailable), rather than a wait without end.
      const { items } = await this.#options.cluster.list<T>(this.#informer.kind, {
        namespace: this.#options.namespace,
      });
      return sortForPaging(items, order);
    }
    let sorted = this.#sorted.get(order);
    if (!sorted)
      this.#sorted.set(order, (sorted = { items: sortForPaging([...this.#informer.values()], order), changed: [] }));
    else if (sorted.changed.length > 0) {
      const items = [...sorted.items];
      // The object as the cache holds it now, or none: a change seen twice is moved once more, to the same place.
      for (const changed of sorted.changed) placeInOrder(items, order, changed, this.#informer.get(objectKey(changed)));
      sorted.items = items;
      sorted.changed = [];
    }
    return sorted.items;
  }

  /** The object of this name as the cache holds it (read after `list`, which waits for this process's writes). */
  peek(name: string): T | undefined {
    return this.#informer.get(objectKey({ metadata: { namespace: this.#options.namespace, name } }));
  }

  /**
   * The object of this name, as of at least this process's last write of the kind. One the cache does not hold is
   * read from the cluster: another replica may have created it a moment ago, before the watch brought it here.
   * The object is the cache's own: callers must not change it.
   */
  async get(name: string): Promise<T | undefined> {
    const ready = this.#informer.caughtUp() || (await this.#informer.catchUp(this.#options.catchUpMs ?? 2_000));
    return (
      (ready ? this.peek(name) : undefined) ??
      this.#options.cluster.get<T>(this.#informer.kind, name, this.#options.namespace)
    );
  }

  /**
   * The resourceVersion the cache has reached when a read would answer from it at once, else undefined (before its
   * first list, or while it waits for this process's writes): equal stamps, equal contents.
   */
  get stamp(): number | undefined {
    return this.#informer.caughtUp() ? this.#informer.version : undefined;
  }

  /** The resourceVersion the cache has reached, as a collection's: what a list from it is as of. */
  get resourceVersion(): string {
    return String(this.#informer.version);
  }
}
