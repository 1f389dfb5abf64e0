import type { KindRef, KubeObject } from './objects.ts';

/**
 * The Cluster port: the one vocabulary in which controllers, the worker and the API server talk to
 * resource storage. Two adapters implement it (embedded file store, Kubernetes API) and pass one
 * shared contract suite (`test/contract/cluster.contract.ts`).
 *
 * Semantics follow the Kubernetes API:
 * - `get` returns `undefined` for a missing object instead of throwing.
 * - `create` fails with ApiError `AlreadyExists` (409); `update`/`patch` with a stale
 *   `metadata.resourceVersion` fail with `Conflict` (409); a missing object gives `NotFound` (404).
 * - `metadata.generation` moves only when `spec` (or any non-metadata, non-status member) changes.
 * - Writes to the main resource ignore `status`; `updateStatus`/`patchStatus` change only `status`.
 * - `delete` of an object with finalizers sets `deletionTimestamp` and keeps it until the last
 *   finalizer is removed (that write answers the object as last stored); dependents (ownerReferences) are deleted
 *   in the background after their owner.
 */
export interface ListOptions {
  namespace?: string;
  /** Kubernetes label selector syntax: `a=b,c!=d,e in (f,g),!h,i` */
  labelSelector?: string;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  items: T[];
  /** Collection resourceVersion: a watch started from it sees every later change exactly once. */
  resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  object: T;
}

export interface WatchOptions extends ListOptions {
  /**
   * Deliver every change after this resourceVersion. Omitted: start with the current state
   * (synthetic ADDED events), then changes. A version older than the retained history gives `Gone` (410).
   */
  resourceVersion?: string;
  signal?: AbortSignal;
}

export type Patch = { type: 'merge'; body: Record<string, unknown> } | { type: 'json'; body: JsonPatchOperation[] };

export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

export interface WriteOptions {
  /** Identifies the writer, as Kubernetes field managers do; `STRATUS_FIELD_MANAGER` when absent. */
  fieldManager?: string;
}

/** The field manager of Stratus's writes (the operator's applier, and any write that names none). */
export const STRATUS_FIELD_MANAGER = 'stratus-operator';

export interface DeleteOptions {
  /** Only delete when the stored object still has this resourceVersion. */
  resourceVersion?: string;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

export interface Cluster {
  get<T extends KubeObject>(kind: KindRef, name: string, namespace?: string): Promise<T | undefined>;
  list<T extends KubeObject>(kind: KindRef, options?: ListOptions): Promise<ObjectList<T>>;
  create<T extends KubeObject>(kind: KindRef, object: T, options?: WriteOptions): Promise<T>;
  update<T extends KubeObject>(kind: KindRef, object: T, options?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(
    kind: KindRef,
    name: string,
    patch: Patch,
    namespace?: string,
    options?: WriteOptions,
  ): Promise<T>;
  /** Create or update so that the stored object carries the given fields (declarative apply). */
  apply<T extends KubeObject>(kind: KindRef, object: T, options?: WriteOptions): Promise<T>;
  updateStatus<T extends KubeObject>(kind: KindRef, object: T, options?: WriteOptions): Promise<T>;
  patchStatus<T extends KubeObject>(
    kind: KindRef,
    name: string,
    patch: Patch,
    namespace?: string,
    options?: WriteOptions,
  ): Promise<T>;
  /** Returns the object as it stands after the call: with deletionTimestamp when finalizers hold it, else undefined. */
  delete<T extends KubeObject>(
    kind: KindRef,
    name: string,
    namespace?: string,
    options?: DeleteOptions,
  ): Promise<T | undefined>;
  watch<T extends KubeObject>(kind: KindRef, options?: WatchOptions): AsyncIterable<WatchEvent<T>>;
}
