// One class of about 550 lines on purpose: every verb of the port shares the per-kind state, the write queue and the
// watch history, and splitting the verbs apart would expose that state; names, watch filtering and files are apart.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { parseLabelSelector } from '../label-selector.ts';
import type { KindRef, KubeObject, ObjectMeta } from '../objects.ts';
import { applyPatch, mergePatch } from '../patch.ts';
import type {
  Cluster,
  DeleteOptions,
  ListOptions,
  ObjectList,
  Patch,
  WatchEvent,
  WatchEventType,
  WatchOptions,
} from '../port.ts';
import { isSecretKind, normalizeSecret } from './secrets.ts';
import { WatchQueue } from '../watch-queue.ts';
import { kindKey, ResourceFiles } from './files.ts';
import { GroupCommit } from './group-commit.ts';
import { JournaledFiles } from './journaled-files.ts';
import { encodeEntry, readJournal } from './journal.ts';
import { acquireOwnerLock } from './owner-lock.ts';
import { checkName, namespaceOf } from './names.ts';
import { eventFor, matchesFilter, type HistoryEntry, type WatchFilter } from './watch-events.ts';

export interface EmbeddedClusterOptions {
  dataDir: string;
  /** Watch events retained per kind for resuming watches (older resourceVersions get 410 Gone). */
  historyLimit?: number;
  /** The size past which the journal's active segment is sealed and checkpointed into the object files. */
  journalSegmentBytes?: number;
  clock?: () => Date;
}

export interface EmbeddedCluster extends Cluster {
  close(): Promise<void>;
}

interface KindState {
  ref: KindRef;
  /** What writers decide on: every accepted write, durable or still in the group commit under way. */
  latest: Map<string, KubeObject>;
  /** What readers and watchers see: durable writes only. */
  objects: Map<string, KubeObject>;
  /** Objects with a write accepted but not yet durable, and when it will be: a read of one waits for it. */
  pending: Map<string, Promise<void>>;
  /** The stored JSON of each object: reads parse it, which is cheaper than deep-cloning the object. */
  texts: Map<string, string>;
  history: HistoryEntry[];
  /** Highest resourceVersion no longer replayable: watches from below it get 410. */
  expiredBelow: number;
  watchers: Set<WatchFilter & { queue: WatchQueue }>;
}

/** One change of an object, staged for the next group commit: its new text, or none for a deletion. */
interface StagedChange {
  object: KubeObject;
  text?: string;
  rv: number;
}

/** A change waiting for the group commit, with what publishing it needs. */
interface Staged {
  change: StagedChange;
  state: KindState;
  type: WatchEventType;
}

const DEFAULT_SEGMENT_BYTES = 8 * 1024 * 1024;

function objectKeyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** Everything but metadata and status: what moves `metadata.generation` when it changes. */
function specPart(object: KubeObject, ref: KindRef): string {
  const { metadata: _m, status, ...rest } = object;
  return JSON.stringify(ref.statusSubresource ? rest : { ...rest, status });
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The `Cluster` port over files: the API server's semantics for every verb (compare-and-swap, generations, status
 * subresource, finalizers, cascading deletion, watches from a resourceVersion). Names, watch filtering, the file
 * layout and the journal live beside it (`names.ts`, `watch-events.ts`, `files.ts`, `journaled-files.ts`); what
 * stays here is the one serialized write path (`#serialize`, `#persist`) that every verb shares, and the loading
 * that rebuilds its state, which is why the class is about 550 lines.
 */
export class FileCluster implements EmbeddedCluster {
  readonly #files: ResourceFiles;
  readonly #historyLimit: number;
  readonly #clock: () => Date;
  readonly #kinds = new Map<string, KindState>();
  /** Kinds whose KindRef is on disk; reads alone create in-memory state that must not count. */
  readonly #persistedKinds = new Set<string>();
  /** The last resourceVersion given to a write, and the last one made durable and visible. */
  #resourceVersion = 0;
  #committedVersion = 0;
  #writes: Promise<unknown> = Promise.resolve();
  /** The durability promises of the writes of the serialized step that runs now. */
  #tickets: Promise<void>[] | undefined;
  readonly #commits = new GroupCommit<Staged, Buffer>({
    encode: ({ change, state }) =>
      encodeEntry({
        kind: kindKey(state.ref),
        name: change.object.metadata.name,
        rv: change.rv,
        ...(change.object.metadata.namespace !== undefined && { namespace: change.object.metadata.namespace }),
        ...(change.text !== undefined && { text: change.text }),
      }),
    finish: (frames) => this.#durable.append(frames),
    publish: ({ change, state, type }) => this.#publishCommitted(state, type, change),
    describeFailure: (err) =>
      new ApiError('InternalError', `the embedded store could not write to disk: ${String(err)}`),
  });
  readonly #durable: JournaledFiles;
  #releaseOwner: () => Promise<void> = async () => undefined;
  #closed = false;

  private constructor(options: EmbeddedClusterOptions) {
    this.#files = new ResourceFiles(options.dataDir);
    this.#durable = new JournaledFiles(this.#files, options.journalSegmentBytes ?? DEFAULT_SEGMENT_BYTES);
    this.#historyLimit = options.historyLimit ?? 10_000;
    this.#clock = options.clock ?? (() => new Date());
  }

  static async open(options: EmbeddedClusterOptions): Promise<FileCluster> {
    const release = await acquireOwnerLock(options.dataDir);
    const cluster = new FileCluster(options);
    cluster.#releaseOwner = release;
    try {
      await cluster.#load();
    } catch (err) {
      await release();
      throw err;
    }
    return cluster;
  }

  /**
   * Loads the object files, replays the journal over them, and checkpoints what it replayed, so that a new journal
   * starts empty: a crash at any point of this leaves the files and the segments to replay again.
   */
  async #load(): Promise<void> {
    for (const ref of await this.#files.kinds()) {
      this.#state(ref);
      this.#persistedKinds.add(kindKey(ref));
    }
    this.#resourceVersion = await this.#files.counter();
    for (const state of this.#kinds.values()) {
      for (const object of await this.#files.objects(state.ref)) {
        const key = objectKeyOf(object.metadata.namespace, object.metadata.name);
        state.latest.set(key, object);
        state.objects.set(key, object);
        state.texts.set(key, JSON.stringify(object));
        this.#resourceVersion = Math.max(this.#resourceVersion, Number(object.metadata.resourceVersion));
      }
    }
    const journal = await readJournal(this.#files.journalDir);
    for (const entry of journal.entries) {
      const state = this.#kinds.get(entry.kind);
      if (!state) throw new Error(`the embedded store's journal names a kind it never registered: ${entry.kind}`);
      const key = objectKeyOf(entry.namespace, entry.name);
      if (entry.text === undefined) {
        state.latest.delete(key);
        state.objects.delete(key);
        state.texts.delete(key);
      } else {
        const object = JSON.parse(entry.text) as KubeObject;
        state.latest.set(key, object);
        state.objects.set(key, object);
        state.texts.set(key, entry.text);
      }
      this.#resourceVersion = Math.max(this.#resourceVersion, entry.rv);
      this.#durable.changed(state.ref, entry, entry.text, this.#resourceVersion);
    }
    this.#committedVersion = this.#resourceVersion;
    await this.#durable.start(journal.last);
    // History lives in memory: after a restart nothing before now can be replayed.
    for (const state of this.#kinds.values()) state.expiredBelow = this.#resourceVersion;
  }

  #state(ref: KindRef): KindState {
    const key = kindKey(ref);
    let state = this.#kinds.get(key);
    if (!state) {
      state = {
        ref,
        latest: new Map(),
        objects: new Map(),
        pending: new Map(),
        texts: new Map(),
        history: [],
        expiredBelow: this.#committedVersion,
        watchers: new Set(),
      };
      this.#kinds.set(key, state);
    }
    return state;
  }

  /** Registers a kind the first time it is written, so the garbage collector can search it after a restart. */
  async #remember(ref: KindRef): Promise<KindState> {
    const state = this.#state(ref);
    const key = kindKey(ref);
    if (!this.#persistedKinds.has(key)) {
      await this.#files.writeKind(ref);
      this.#persistedKinds.add(key);
    }
    return state;
  }

  /**
   * Writes are decided one at a time, against every write accepted before (compare-and-swap on resourceVersion is
   * then a plain comparison), and made durable in groups: a step ends once its changes are staged, so the steps that
   * queue while one group is flushed go to disk together in the next (group commit). A caller's promise settles when
   * its changes are durable and visible to readers; a step that changed nothing waits for the writes staged before
   * it, so what it answered is never newer than what readers see.
   */
  #serialize<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new ApiError('InternalError', 'the embedded cluster is closed'));
    if (this.#commits.failure) return Promise.reject(this.#commits.failure);
    const step = this.#writes.then(async () => {
      if (this.#commits.failure) throw this.#commits.failure;
      const tickets: Promise<void>[] = [];
      this.#tickets = tickets;
      try {
        const value = await work();
        const pending = this.#commits.pending();
        if (tickets.length === 0 && pending) tickets.push(pending);
        return { value, tickets };
      } finally {
        this.#tickets = undefined;
      }
    });
    this.#writes = step.catch(() => undefined);
    return step.then(async ({ value, tickets }) => {
      await Promise.all(tickets);
      return value;
    });
  }

  /** Now, to the second, as the API server writes timestamps. */
  #timestamp(): string {
    return this.#clock()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  #stored(ref: KindRef, name: string, namespace: string | undefined): KubeObject {
    const object = this.#state(ref).latest.get(objectKeyOf(namespace, name));
    if (!object) throw new ApiError('NotFound', `${ref.plural} "${name}" not found`);
    return object;
  }

  /** Accepts a change: writers see it at once, readers once its group commit is durable. */
  async #persist(state: KindState, type: WatchEventType, object: KubeObject): Promise<KubeObject> {
    const rv = ++this.#resourceVersion;
    object.metadata.resourceVersion = String(rv);
    const key = objectKeyOf(object.metadata.namespace, object.metadata.name);
    if (type === 'DELETED') state.latest.delete(key);
    else state.latest.set(key, object);
    const change: StagedChange = { object, rv };
    if (type !== 'DELETED') change.text = JSON.stringify(object);
    const durable = this.#commits.stage({ change, state, type });
    state.pending.set(key, durable);
    const settled = () => {
      if (state.pending.get(key) === durable) state.pending.delete(key);
    };
    durable.then(settled, settled);
    if (this.#tickets) this.#tickets.push(durable);
    // The caller's copy is the stored text parsed, as a read returns it: cheaper than cloning the object.
    return change.text === undefined ? structuredClone(object) : (JSON.parse(change.text) as KubeObject);
  }

  /** A durable change becomes what readers see, and its event goes to the history and the watchers. */
  #publishCommitted(state: KindState, type: WatchEventType, { object, text, rv }: StagedChange): void {
    const key = objectKeyOf(object.metadata.namespace, object.metadata.name);
    const previous = state.objects.get(key);
    const relabelled = previous && !sameJson(previous.metadata.labels, object.metadata.labels) ? previous : undefined;
    if (text === undefined) {
      state.objects.delete(key);
      state.texts.delete(key);
    } else {
      state.objects.set(key, object);
      state.texts.set(key, text);
    }
    this.#durable.changed(state.ref, object.metadata, text, rv);
    this.#committedVersion = rv;
    this.#publish(state, { rv, event: { type, object }, ...(relabelled ? { relabelled } : {}) });
  }

  #publish(state: KindState, entry: HistoryEntry): void {
    state.history.push(entry);
    if (state.history.length > this.#historyLimit) state.expiredBelow = state.history.shift()!.rv;
    for (const watcher of state.watchers) {
      const event = eventFor(entry, watcher);
      if (event) watcher.queue.push(event);
    }
  }

  /**
   * Reads are linearizable, as the API server's reads from etcd are: a read waits for the writes of what it reads
   * that were accepted before it (at most one group commit), so a writer that lost a compare-and-swap reads the
   * winner's version, not the one it lost on. A failed write makes the read fail too.
   */
  async get<T extends KubeObject>(ref: KindRef, name: string, namespace?: string): Promise<T | undefined> {
    const state = this.#state(ref);
    const key = objectKeyOf(namespaceOf(ref, namespace), name);
    const pending = state.pending.get(key);
    if (pending) await pending;
    const text = state.texts.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async list<T extends KubeObject>(ref: KindRef, options: ListOptions = {}): Promise<ObjectList<T>> {
    const selector = parseLabelSelector(options.labelSelector);
    const namespace = ref.namespaced && options.namespace ? options.namespace : undefined;
    const state = this.#state(ref);
    if (state.pending.size > 0) await Promise.all(state.pending.values());
    const items = [...state.objects.entries()]
      .filter(([, o]) => matchesFilter(o, { namespace, selector }))
      .map(([key]) => key)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((key) => JSON.parse(state.texts.get(key)!) as T);
    return { items, resourceVersion: String(this.#committedVersion) };
  }

  create<T extends KubeObject>(ref: KindRef, input: T): Promise<T> {
    return this.#serialize(() => this.#create(ref, input) as Promise<T>);
  }

  async #create(ref: KindRef, input: KubeObject): Promise<KubeObject> {
    const state = await this.#remember(ref);
    const object = structuredClone(input) as KubeObject;
    const meta = object.metadata ?? ({} as ObjectMeta);
    const namespace = namespaceOf(ref, meta.namespace);
    let name = meta.name;
    if (!name && meta.generateName) name = `${meta.generateName}${randomUUID().replace(/-/g, '').slice(0, 5)}`;
    checkName(ref, name);
    if (state.latest.has(objectKeyOf(namespace, name))) {
      throw new ApiError('AlreadyExists', `${ref.plural} "${name}" already exists`);
    }
    const metadata: ObjectMeta = {
      ...meta,
      name,
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: this.#timestamp(),
    };
    if (namespace) metadata.namespace = namespace;
    delete metadata.resourceVersion;
    delete metadata.deletionTimestamp;
    let created: KubeObject = { ...object, apiVersion: ref.apiVersion, kind: ref.kind, metadata };
    if (ref.statusSubresource) delete created.status;
    if (isSecretKind(ref)) created = normalizeSecret(created);
    return this.#persist(state, 'ADDED', created);
  }

  update<T extends KubeObject>(ref: KindRef, input: T): Promise<T> {
    return this.#serialize(() => this.#update(ref, structuredClone(input)) as Promise<T>);
  }

  async #update(ref: KindRef, input: KubeObject): Promise<KubeObject> {
    const state = await this.#remember(ref);
    const namespace = namespaceOf(ref, input.metadata?.namespace);
    const stored = this.#stored(ref, input.metadata?.name, namespace);
    this.#checkPrecondition(ref, stored, input.metadata.resourceVersion);
    const finalizers = input.metadata.finalizers ?? [];
    if (stored.metadata.deletionTimestamp) {
      const added = finalizers.filter((f) => !(stored.metadata.finalizers ?? []).includes(f));
      if (added.length > 0) {
        throw new ApiError('Invalid', `${ref.plural} "${stored.metadata.name}" is being deleted: no new finalizers`, [
          { field: 'metadata.finalizers', message: 'no new finalizers can be added if the object is being deleted' },
        ]);
      }
    }
    let next: KubeObject = {
      ...input,
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      metadata: {
        ...input.metadata,
        name: stored.metadata.name,
        namespace: stored.metadata.namespace,
        uid: stored.metadata.uid!,
        creationTimestamp: stored.metadata.creationTimestamp!,
        generation: stored.metadata.generation!,
        resourceVersion: stored.metadata.resourceVersion!,
      },
    };
    if (!next.metadata.namespace) delete next.metadata.namespace;
    if (stored.metadata.deletionTimestamp) next.metadata.deletionTimestamp = stored.metadata.deletionTimestamp;
    else delete next.metadata.deletionTimestamp;
    if (ref.statusSubresource) {
      if (stored.status === undefined) delete next.status;
      else next.status = stored.status;
    }
    if (isSecretKind(ref)) next = normalizeSecret(next, stored);
    const specChanged = specPart(next, ref) !== specPart(stored, ref);
    if (specChanged) next.metadata.generation = stored.metadata.generation! + 1;
    if (next.metadata.deletionTimestamp && finalizers.length === 0) return this.#remove(state, next);
    // A changed spec moved the generation, so only an unchanged one can leave the whole object as it was.
    if (!specChanged && sameJson(next, stored)) return structuredClone(stored);
    return this.#persist(state, 'MODIFIED', next);
  }

  #checkPrecondition(ref: KindRef, stored: KubeObject, resourceVersion: string | undefined): void {
    if (resourceVersion !== undefined && resourceVersion !== stored.metadata.resourceVersion) {
      throw new ApiError(
        'Conflict',
        `Operation cannot be fulfilled on ${ref.plural} "${stored.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
  }

  patch<T extends KubeObject>(ref: KindRef, name: string, patch: Patch, namespace?: string): Promise<T> {
    return this.#serialize(async () => {
      const stored = this.#stored(ref, name, namespaceOf(ref, namespace));
      const patched = applyPatch(stored, patch);
      return (await this.#update(ref, { ...patched, metadata: { ...patched.metadata, name, namespace } })) as T;
    });
  }

  apply<T extends KubeObject>(ref: KindRef, input: T): Promise<T> {
    return this.#serialize(async () => {
      const namespace = namespaceOf(ref, input.metadata?.namespace);
      const stored = this.#state(ref).latest.get(objectKeyOf(namespace, input.metadata?.name));
      if (!stored) return (await this.#create(ref, input)) as T;
      const { resourceVersion: _rv, ...metadata } = input.metadata;
      const merged = mergePatch(stored, { ...structuredClone(input), metadata }) as KubeObject;
      return (await this.#update(ref, merged)) as T;
    });
  }

  updateStatus<T extends KubeObject>(ref: KindRef, input: T): Promise<T> {
    return this.#serialize(async () => {
      const stored = this.#stored(ref, input.metadata.name, namespaceOf(ref, input.metadata.namespace));
      this.#checkPrecondition(ref, stored, input.metadata.resourceVersion);
      return (await this.#writeStatus(ref, stored, structuredClone(input.status))) as T;
    });
  }

  patchStatus<T extends KubeObject>(ref: KindRef, name: string, patch: Patch, namespace?: string): Promise<T> {
    return this.#serialize(async () => {
      const stored = this.#stored(ref, name, namespaceOf(ref, namespace));
      const patched = applyPatch(stored, patch);
      this.#checkPrecondition(ref, stored, patched.metadata?.resourceVersion);
      return (await this.#writeStatus(ref, stored, patched.status)) as T;
    });
  }

  async #writeStatus(ref: KindRef, stored: KubeObject, status: unknown): Promise<KubeObject> {
    if (!ref.statusSubresource) throw new ApiError('NotFound', `${ref.plural} has no status subresource`);
    if (sameJson(status, stored.status)) return structuredClone(stored);
    const next: KubeObject = { ...structuredClone(stored), status };
    if (status === undefined) delete next.status;
    return this.#persist(this.#state(ref), 'MODIFIED', next);
  }

  delete<T extends KubeObject>(
    ref: KindRef,
    name: string,
    namespace?: string,
    options: DeleteOptions = {},
  ): Promise<T | undefined> {
    return this.#serialize(async () => {
      const state = this.#state(ref);
      const stored = this.#stored(ref, name, namespaceOf(ref, namespace));
      this.#checkPrecondition(ref, stored, options.resourceVersion);
      if ((stored.metadata.finalizers ?? []).length > 0) {
        if (stored.metadata.deletionTimestamp) return structuredClone(stored) as T;
        return (await this.#markDeleting(state, stored)) as T;
      }
      await this.#remove(state, structuredClone(stored), options.propagationPolicy ?? 'Background');
      return undefined;
    });
  }

  /** An object with finalizers is not removed but marked: its finalizers' owners remove them, then it goes. */
  #markDeleting(state: KindState, object: KubeObject): Promise<KubeObject> {
    const next = structuredClone(object);
    next.metadata.deletionTimestamp = this.#timestamp();
    return this.#persist(state, 'MODIFIED', next);
  }

  /**
   * Returns the object as last stored, which Kubernetes answers too when an update released the last finalizer of
   * an object being deleted: a write that removes an object still returns one.
   */
  async #remove(
    state: KindState,
    object: KubeObject,
    policy: DeleteOptions['propagationPolicy'] = 'Background',
  ): Promise<KubeObject> {
    const removed = await this.#persist(state, 'DELETED', object);
    const uid = object.metadata.uid;
    // Like the garbage collector of kube-controller-manager, dependents go after their owner, asynchronously.
    queueMicrotask(() => {
      if (this.#closed) return;
      void this.#serialize(() => this.#collectDependents(uid!, policy)).catch(() => undefined);
    });
    return removed;
  }

  async #collectDependents(uid: string, policy: DeleteOptions['propagationPolicy']): Promise<void> {
    for (const state of this.#kinds.values()) {
      for (const dependent of [...state.latest.values()]) {
        const refs = dependent.metadata.ownerReferences ?? [];
        if (!refs.some((r) => r.uid === uid)) continue;
        const { name, namespace } = dependent.metadata;
        if (policy === 'Orphan') {
          const next = structuredClone(dependent);
          next.metadata.ownerReferences = refs.filter((r) => r.uid !== uid);
          if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
          await this.#persist(state, 'MODIFIED', next);
        } else if ((dependent.metadata.finalizers ?? []).length > 0) {
          if (dependent.metadata.deletionTimestamp) continue;
          await this.#markDeleting(state, dependent);
        } else if (state.latest.has(objectKeyOf(namespace, name))) {
          await this.#persist(state, 'DELETED', structuredClone(dependent));
          await this.#collectDependents(dependent.metadata.uid!, policy);
        }
      }
    }
  }

  watch<T extends KubeObject>(ref: KindRef, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    const state = this.#state(ref);
    const selector = parseLabelSelector(options.labelSelector);
    const namespace = ref.namespaced && options.namespace ? options.namespace : undefined;
    const filter = { namespace, selector };
    const from = options.resourceVersion === undefined ? undefined : Number(options.resourceVersion);
    if (from !== undefined && (!Number.isInteger(from) || from < 0)) {
      throw new ApiError('BadRequest', `invalid resourceVersion "${options.resourceVersion}"`);
    }
    if (from !== undefined && from < state.expiredBelow) {
      throw new ApiError('Gone', `too old resource version: ${from} (${state.expiredBelow})`);
    }
    // Snapshot and subscription happen in one synchronous step, so no write can fall between them.
    const watcher = { queue: new WatchQueue(() => state.watchers.delete(watcher)), ...filter };
    if (from === undefined) {
      for (const object of state.objects.values()) {
        if (matchesFilter(object, filter)) watcher.queue.push({ type: 'ADDED', object: structuredClone(object) });
      }
    } else {
      for (const entry of state.history) {
        const event = entry.rv > from ? eventFor(entry, filter) : undefined;
        if (event) watcher.queue.push(event);
      }
    }
    state.watchers.add(watcher);
    if (this.#closed) watcher.queue.close();
    options.signal?.addEventListener('abort', () => watcher.queue.close(), { once: true });
    if (options.signal?.aborted) watcher.queue.close();
    return watcher.queue as AsyncIterable<WatchEvent<T>>;
  }

  /** Waits for the writes under way, closes the watches, and checkpoints what the journal holds. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#writes;
    await this.#commits.pending()?.catch(() => undefined);
    for (const state of this.#kinds.values()) for (const w of state.watchers) w.queue.close();
    try {
      await this.#durable.close(!this.#commits.failure);
    } finally {
      await this.#releaseOwner();
    }
  }
}
