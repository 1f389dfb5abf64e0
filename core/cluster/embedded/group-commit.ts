/**
 * Pipelined group commit: changes accepted one at a time are prepared at once (the embedded store encodes each as a
 * journal frame) and finished in runs: the longest run of prepared changes at the head of the queue is made durable
 * together (one append and one flush), while the changes behind it keep preparing. Changes are finished and
 * published in the order they were staged, and each stage's promise settles when its change is durable and
 * published. A failed write fails every change not yet finished, and every later stage (fail-stop, as etcd stops
 * on a failed fsync): those changes were decided on writes that never landed.
 */
const MAX_PREPARING = 64;

interface Entry<T, P> {
  item: T;
  prepared?: P;
  ready: boolean;
  settled: boolean;
  resolve(): void;
  reject(err: unknown): void;
  promise: Promise<void>;
}

export interface GroupCommitSteps<T, P> {
  /** Makes an item ready to be finished; runs concurrently for many items. */
  prepare(item: T): Promise<P>;
  /** Makes a run of prepared items durable, in order. */
  finish(run: readonly P[]): Promise<void>;
  /** Drops prepared items that will not be finished. */
  discard(prepared: readonly P[]): Promise<void>;
  /** Makes a finished item visible (called in stage order). */
  publish(item: T): void;
  describeFailure(err: unknown): Error;
}

export class GroupCommit<T, P> {
  readonly #steps: GroupCommitSteps<T, P>;
  /** Staged and not finished, in stage order. */
  #queue: Entry<T, P>[] = [];
  /** Staged but not yet preparing, beyond MAX_PREPARING. */
  #waiting: Entry<T, P>[] = [];
  #preparing = 0;
  /** Whether runs are being finished (one loop at a time keeps them in order). */
  #active = false;
  #failure: Error | undefined;

  constructor(steps: GroupCommitSteps<T, P>) {
    this.#steps = steps;
  }

  /** Why writes stopped, once one failed. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  stage(item: T): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Callers await it; a failure nobody waits for must not be an unhandled rejection.
    promise.catch(() => undefined);
    const entry: Entry<T, P> = { item, ready: false, settled: false, resolve, reject, promise };
    this.#queue.push(entry);
    if (this.#preparing < MAX_PREPARING) void this.#prepare(entry);
    else this.#waiting.push(entry);
    return promise;
  }

  /** Settles when every change staged so far is durable; undefined when none is pending. */
  pending(): Promise<void> | undefined {
    // Entries leave the queue only once finished, and settle in order: the last one settles after all.
    return this.#queue.at(-1)?.promise;
  }

  async #prepare(entry: Entry<T, P>): Promise<void> {
    this.#preparing++;
    try {
      entry.prepared = await this.#steps.prepare(entry.item);
      entry.ready = true;
    } catch (err) {
      await this.#fail(err);
      return;
    } finally {
      this.#preparing--;
    }
    if (this.#failure) {
      await this.#steps.discard([entry.prepared]).catch(() => undefined);
      return;
    }
    const next = this.#waiting.shift();
    if (next) void this.#prepare(next);
    if (!this.#active) {
      this.#active = true;
      void this.#finishRuns();
    }
  }

  async #finishRuns(): Promise<void> {
    try {
      while (!this.#failure) {
        let length = 0;
        while (length < this.#queue.length && this.#queue[length]!.ready) length++;
        if (length === 0) return;
        const run = this.#queue.slice(0, length);
        try {
          await this.#steps.finish(run.map((e) => e.prepared!));
        } catch (err) {
          await this.#fail(err);
          return;
        }
        this.#queue.splice(0, length);
        for (const entry of run) this.#steps.publish(entry.item);
        for (const entry of run) {
          entry.settled = true;
          entry.resolve();
        }
      }
    } finally {
      this.#active = false;
    }
  }

  async #fail(err: unknown): Promise<void> {
    if (this.#failure) return;
    this.#failure = this.#steps.describeFailure(err);
    const unfinished = this.#queue.filter((e) => !e.settled);
    this.#queue = [];
    this.#waiting = [];
    for (const entry of unfinished) entry.reject(this.#failure);
    await this.#steps.discard(unfinished.filter((e) => e.ready).map((e) => e.prepared!)).catch(() => undefined);
  }
}
