import type { Logger } from 'pino';
import { inform } from '../../../core/cluster/informer.ts';
import type { KindRef, KubeObject } from '../../../core/cluster/objects.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { byName, seek, sortForPaging, type PageOrder } from '../../pagination.ts';

export interface ResourceCacheOptions {
  cluster: Cluster;
  kind: KindRef;
  namespace: string;
  logger: Logger;
  signal: AbortSignal;
  /** How long a list waits for the cache to see this process's own writes before it reads the cluster instead. */
  catchUpMs?: number;
}

/** A write of this process the cache must have seen before a list answers from it. */
type Expectation = { resourceVersion: number } | { deleted: string };

/**
 * The objects in one order as last read, and what changed since, by name: the object it replaced (absent when new)
 * and the one now (absent when deleted).
 */
interface Ordered<T> {
  items: readonly T[];
  changes: Map<string, { was?: T; now?: T }>;
}

/** Past this many changes since the last read, a list is sorted again rather than edited change by change. */
const EDITS_BEFORE_SORT = 64;

/**
 * One kind's objects in the API server's namespace, kept by an informer (list, then watch; `core/cluster/informer.ts`)
 * so that list routes cost no request to the resource store. It starts on its first read.
 *
 * Reads see this process's writes: the writes made through `ResourceCaches.cluster` leave an expectation (the
 * written resourceVersion, or for a deletion without finalizers the name that must go), and a list waits until the
 * watch has delivered them; past `catchUpMs` it reads the cluster instead, as it does while the first list is not
 * in. Resource versions are compared as numbers, which both adapters issue (the embedded store's counter, etcd's
 * revision). Other writers' changes appear as the watch delivers them, as on any informer.
 */
export class ResourceCache<T extends KubeObject> {
  readonly #options: ResourceCacheOptions;
  readonly #objects = new Map<string, T>();
  /**
   * The objects in each order read, and the changes since: the first read after a few changes answers a new array
   * with those objects moved (a binary search each), after many or a relist a new sort; never an array it answered
   * before changed, since routes keep what they make of one (`derived.ts`).
   */
  #ordered = new Map<PageOrder<T>, Ordered<T>>();
  /** The resourceVersion the cache has reached: its last list or event. */
  #version = 0;
  #expectations: Expectation[] = [];
  /** Waiting lists, called when the cache reached a new version. */
  #notified = new Set<() => void>();
  #informer: { synced: Promise<void>; done: Promise<void> } | undefined;
  /** Set once the first list is in: reads then skip the race against `catchUpMs`, a timer per read. */
  #listed = false;

  constructor(options: ResourceCacheOptions) {
    this.#options = options;
  }

  /** Whether the cache has started: writes before that need no expectation, the first list comes after them. */
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
      onList: (items) => {
        this.#listed = true;
        this.#ordered.clear();
        this.#objects.clear();
        for (const item of items) this.#objects.set(item.metadata.name, item);
        this.#forget((name) => !this.#objects.has(name));
        this.#reached(items);
      },
      onEvent: ({ type, object }) => {
        this.#changed(object.metadata.name, type === 'DELETED' ? undefined : object);
        if (type === 'DELETED') {
          this.#objects.delete(object.metadata.name);
          this.#forget((name) => name === object.metadata.name);
        } else this.#objects.set(object.metadata.name, object);
        this.#reached([object]);
      },
    });
    return this.#informer.synced;
  }

  #reached(objects: T[]): void {
    for (const object of objects) this.#version = Math.max(this.#version, Number(object.metadata.resourceVersion));
    for (const notify of this.#notified) notify();
  }

  /** Notes, for each order read, that the object of this name is now `now` (undefined: deleted). */
  #changed(name: string, now: T | undefined): void {
    const was = this.#objects.get(name);
    for (const [order, ordered] of this.#ordered) {
      if (ordered.changes.size >= EDITS_BEFORE_SORT) this.#ordered.delete(order);
      else {
        // The object the read array holds is the one before the first change since (none: new since).
        const first = ordered.changes.get(name);
        ordered.changes.set(name, { was: first ? first.was : was, now });
      }
    }
  }

  /** Every object in `order`: the last read's array with the changes since, or a new sort. */
  #inOrder(order: PageOrder<T>): readonly T[] {
    const ordered = this.#ordered.get(order);
    if (ordered && ordered.changes.size === 0) return ordered.items;
    const items = (ordered && edited(ordered, order)) ?? sortForPaging([...this.#objects.values()], order);
    this.#ordered.set(order, { items, changes: new Map() });
    return items;
  }

  /** Drops the expected deletions the cache has now seen (a re-creation may follow: the name alone cannot tell). */
  #forget(seen: (name: string) => boolean): void {
    this.#expectations = this.#expectations.filter((e) => !('deleted' in e && seen(e.deleted)));
  }

  /** The resourceVersion the cache has reached, as a collection's: what a list from it is as of. */
  get resourceVersion(): string {
    return String(this.#version);
  }

  /** Resolves once the informer has stopped (its signal aborted), at once when it never started. */
  async stopped(): Promise<void> {
    await this.#informer?.done;
  }

  /** Records a write of this process: the next lists wait for the cache to see it. */
  expect(expectation: Expectation): void {
    if (!this.started) return;
    // A deletion the watch delivered already (the embedded store does before the call returns) awaits nothing.
    if ('deleted' in expectation && !this.#objects.has(expectation.deleted)) return;
    this.#expectations.push(expectation);
  }

  #caughtUp(): boolean {
    if (this.#expectations.length === 0) return true;
    this.#expectations = this.#expectations.filter((e) => 'deleted' in e || e.resourceVersion > this.#version);
    return this.#expectations.length === 0;
  }

  /** Every object in `order` (by name unless told), as of at least this process's last write of the kind. */
  async list(order: PageOrder<T> = byName): Promise<readonly T[]> {
    if (!(await this.#synced()) || (!this.#caughtUp() && !(await this.#catchUp()))) {
      // The store's own answer, or its error (503 when it is unavailable), rather than a wait without end.
      const { items } = await this.#options.cluster.list<T>(this.#options.kind, { namespace: this.#options.namespace });
      return sortForPaging(items, order);
    }
    return this.#inOrder(order);
  }

  /** The object of this name as the cache holds it (read after `list`, which waits for this process's writes). */
  peek(name: string): T | undefined {
    return this.#objects.get(name);
  }

  /**
   * The object of this name, as of at least this process's last write of the kind. One the cache does not hold is
   * read from the cluster: another replica may have created it a moment ago, before the watch brought it here.
   * The object is the cache's own: callers must not change it.
   */
  async get(name: string): Promise<T | undefined> {
    const ready = (await this.#synced()) && (this.#caughtUp() || (await this.#catchUp()));
    return (
      (ready ? this.#objects.get(name) : undefined) ??
      this.#options.cluster.get<T>(this.#options.kind, name, this.#options.namespace)
    );
  }

  /** Starts the informer; false when its first list is not in within `catchUpMs` (the store is slow or down). */
  async #synced(): Promise<boolean> {
    if (this.#listed) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>(
      (resolve) => (timer = setTimeout(resolve, this.#options.catchUpMs ?? 2_000, false)),
    );
    try {
      return await Promise.race([this.start().then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for the watch to deliver the expected writes; false when it did not within `catchUpMs`. */
  async #catchUp(): Promise<boolean> {
    const deadline = Date.now() + (this.#options.catchUpMs ?? 2_000);
    while (!this.#caughtUp()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let notify = () => {};
      const changed = new Promise<void>((resolve) => (notify = resolve));
      this.#notified.add(notify);
      const timer = setTimeout(notify, left);
      await changed;
      clearTimeout(timer);
      this.#notified.delete(notify);
    }
    return true;
  }
}

/**
 * A copy of `items` with each change applied: the object it replaced taken out at its place in the order (found by
 * binary search), the new one put in at its own; undefined when a replaced object is not where its key says, which
 * an order whose key changed would do, so that the caller sorts anew.
 */
function edited<T extends KubeObject>({ items, changes }: Ordered<T>, order: PageOrder<T>): T[] | undefined {
  const copy = [...items];
  for (const { was, now } of changes.values()) {
    if (was) {
      const at = seek(copy, order, order.key(was), false);
      if (copy[at] !== was) return undefined;
      copy.splice(at, 1);
    }
    if (now) copy.splice(seek(copy, order, order.key(now), false), 0, now);
  }
  return copy;
}
