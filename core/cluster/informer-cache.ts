import type { Logger } from 'pino';
import { inform } from './informer.ts';
import { objectKey, type KindRef, type KubeObject } from './objects.ts';
import type { Cluster } from './port.ts';

export interface InformerCacheOptions {
  cluster: Cluster;
  kind: KindRef;
  /** One namespace, or every namespace when absent. */
  namespace?: string;
  logger: Logger;
  signal: AbortSignal;
  rewatchMs?: number;
}

/** A write of this process the cache must have seen before a fresh read answers from it. */
export type Expectation = { resourceVersion: number } | { deleted: string };

/** Values of an index for one object (client-go's `IndexFunc`): `byIndex(name, value)` finds it under each. */
export type IndexFunction<T> = (object: T) => string[];

/**
 * One kind's objects (in one namespace or all), kept by an informer (`inform`: list, then watch), keyed by
 * `namespace/name` (`objectKey`), with named indexes, as client-go's shared informer with its indexer.
 *
 * Subscribers hear of every object the cache took in (each item of a list, the object of each event, deleted
 * or not) only after the cache and its indexes hold it, so a reconcile a subscriber queues reads at least that.
 *
 * Reads can see this process's writes: a write made through `InformerCaches.cluster` leaves an expectation (the
 * written resourceVersion, or for a deletion without finalizers the key that must go), and `catchUp` waits until
 * the watch delivered them. Resource versions are compared as numbers, which both adapters issue (the embedded
 * store's counter, etcd's revision). Other writers' changes appear as the watch delivers them.
 */
export class InformerCache<T extends KubeObject> {
  readonly #options: InformerCacheOptions;
  readonly #objects = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunction<T>>();
  /** index name -> value -> keys of the objects under it. */
  readonly #indexes = new Map<string, Map<string, Set<string>>>();
  /** The resourceVersion the cache has reached: its last list or event. */
  #version = 0;
  #expectations: Expectation[] = [];
  readonly #subscribers = new Set<(objects: readonly T[]) => void>();
  #informer: { synced: Promise<void>; done: Promise<void> } | undefined;
  #synced = false;

  constructor(options: InformerCacheOptions) {
    this.#options = options;
  }

  get kind(): KindRef {
    return this.#options.kind;
  }

  /** The resourceVersion the cache has reached: its last list or event. */
  get version(): number {
    return this.#version;
  }

  /** Whether the informer has started: writes before that need no expectation, its first list comes after them. */
  get started(): boolean {
    return this.#informer !== undefined;
  }

  /** Starts the informer once; resolves after its first list. */
  start(): Promise<void> {
    this.#informer ??= inform<T>({
      cluster: this.#options.cluster,
      kind: this.#options.kind,
      namespace: this.#options.namespace,
      logger: this.#options.logger,
      signal: this.#options.signal,
      rewatchMs: this.#options.rewatchMs,
      onList: (items) => {
        this.#objects.clear();
        for (const index of this.#indexes.values()) index.clear();
        for (const item of items) this.#put(item);
        this.#forget((key) => !this.#objects.has(key));
        this.#synced = true;
        this.#reached(items);
      },
      onEvent: ({ type, object }) => {
        if (type === 'DELETED') {
          this.#remove(objectKey(object));
          this.#forget((key) => key === objectKey(object));
        } else this.#put(object);
        this.#reached([object]);
      },
    });
    return this.#informer.synced;
  }

  /** Resolves once the informer has stopped (its signal aborted), at once when it never started. */
  async stopped(): Promise<void> {
    await this.#informer?.done;
  }

  /**
   * Calls `handler` with the objects the cache takes in from now on, and at once with those it holds when its
   * first list is in already. Returns the unsubscription.
   */
  subscribe(handler: (objects: readonly T[]) => void): () => void {
    this.#subscribers.add(handler);
    if (this.#synced && this.#objects.size > 0) handler([...this.#objects.values()]);
    return () => this.#subscribers.delete(handler);
  }

  /** Adds an index (built at once over what the cache holds); a second call with the same name keeps the first. */
  addIndex(name: string, indexer: IndexFunction<T>): void {
    if (this.#indexers.has(name)) return;
    this.#indexers.set(name, indexer);
    this.#indexes.set(name, new Map());
    for (const [key, object] of this.#objects) this.#indexOne(name, key, object);
  }

  /** The objects under `value` of index `name`, in no particular order. */
  byIndex(name: string, value: string): T[] {
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`${this.#options.kind.kind} cache has no index "${name}"`);
    return [...(index.get(value) ?? [])].map((key) => this.#objects.get(key)!);
  }

  get(key: string): T | undefined {
    return this.#objects.get(key);
  }

  values(): IterableIterator<T> {
    return this.#objects.values();
  }

  #put(object: T): void {
    const key = objectKey(object);
    if (this.#objects.has(key)) this.#remove(key);
    this.#objects.set(key, object);
    for (const name of this.#indexers.keys()) this.#indexOne(name, key, object);
  }

  #indexOne(name: string, key: string, object: T): void {
    const index = this.#indexes.get(name)!;
    for (const value of this.#indexers.get(name)!(object)) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  #remove(key: string): void {
    const object = this.#objects.get(key);
    if (!object) return;
    this.#objects.delete(key);
    for (const [name, indexer] of this.#indexers) {
      const index = this.#indexes.get(name)!;
      for (const value of indexer(object)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }

  #reached(objects: readonly T[]): void {
    for (const object of objects) this.#version = Math.max(this.#version, Number(object.metadata.resourceVersion));
    // Dropped as the watch reaches them, not when a reader asks: a cache nobody reads fresh would keep every one.
    if (this.#expectations.length > 0)
      this.#expectations = this.#expectations.filter((e) => 'deleted' in e || e.resourceVersion > this.#version);
    for (const notify of this.#subscribers) notify(objects);
  }

  /** Drops the expected deletions the cache has now seen (a re-creation may follow: the key alone cannot tell). */
  #forget(seen: (key: string) => boolean): void {
    this.#expectations = this.#expectations.filter((e) => !('deleted' in e && seen(e.deleted)));
  }

  /** Records a write of this process: `caughtUp` is false until the cache has seen it. */
  expect(expectation: Expectation): void {
    if (!this.started) return;
    // A write the watch delivered already (the embedded store does before the call returns) awaits nothing.
    if (
      'deleted' in expectation ? !this.#objects.has(expectation.deleted) : expectation.resourceVersion <= this.#version
    )
      return;
    this.#expectations.push(expectation);
  }

  /** How many of this process's writes, recorded by `expect`, the cache has not seen yet. */
  get awaited(): number {
    return this.#expectations.length;
  }

  /** Whether the cache has listed and seen every write of this process recorded by `expect`. */
  caughtUp(): boolean {
    return this.#synced && this.#expectations.length === 0;
  }

  /**
   * Starts the informer and waits until it has caught up with this process's writes; false when it has not within
   * `timeoutMs` (the store is slow or down): the caller then reads the store instead.
   */
  async catchUp(timeoutMs: number): Promise<boolean> {
    void this.start();
    const deadline = Date.now() + timeoutMs;
    while (!this.caughtUp()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let notify = () => {};
      const changed = new Promise<void>((resolve) => (notify = resolve));
      this.#subscribers.add(notify);
      const timer = setTimeout(notify, left);
      await changed;
      clearTimeout(timer);
      this.#subscribers.delete(notify);
    }
    return true;
  }
}
