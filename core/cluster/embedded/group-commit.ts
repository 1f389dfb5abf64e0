/**
 * Group commit: each change is encoded when it is staged, and the changes staged while a run is being written go
 * together into the next run (one append and one flush). Changes are published in the order they were staged, and
 * each stage's promise settles when its change is durable and published. A failed encoding or write fails every
 * change not yet finished, and every later stage (fail-stop, as etcd stops on a failed fsync): those changes were
 * decided on writes that never landed.
 */
interface Entry<T, E> {
  item: T;
  encoded: E;
  resolve(): void;
  reject(err: unknown): void;
  promise: Promise<void>;
}

export interface GroupCommitSteps<T, E> {
  /** Encodes an item for `finish`, when it is staged. */
  encode(item: T): E;
  /** Makes a run of encoded items durable, in order. */
  finish(run: readonly E[]): Promise<void>;
  /** Makes a finished item visible (called in stage order). */
  publish(item: T): void;
  describeFailure(err: unknown): Error;
}

export class GroupCommit<T, E> {
  readonly #steps: GroupCommitSteps<T, E>;
  /** Staged and not finished, in stage order. */
  #queue: Entry<T, E>[] = [];
  /** How many at the head of the queue are being written now. */
  #writing = 0;
  /** Whether runs are being finished (one loop at a time keeps them in order). */
  #active = false;
  #failure: Error | undefined;

  constructor(steps: GroupCommitSteps<T, E>) {
    this.#steps = steps;
  }

  /** Why writes stopped, once one failed. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  stage(item: T): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    let encoded: E;
    try {
      encoded = this.#steps.encode(item);
    } catch (err) {
      return Promise.reject(this.#fail(err));
    }
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    // Callers await it; a failure nobody waits for must not be an unhandled rejection.
    promise.catch(() => undefined);
    this.#queue.push({ item, encoded, resolve, reject, promise });
    if (!this.#active) {
      this.#active = true;
      // After the current microtasks, so that the changes staged together in one step make one run.
      queueMicrotask(() => void this.#finishRuns());
    }
    return promise;
  }

  /** Settles when every change staged so far is durable; undefined when none is pending. */
  pending(): Promise<void> | undefined {
    // Entries leave the queue only once finished, and settle in order: the last one settles after all.
    return this.#queue.at(-1)?.promise;
  }

  async #finishRuns(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const run = this.#queue.slice();
        this.#writing = run.length;
        try {
          await this.#steps.finish(run.map((e) => e.encoded));
        } catch (err) {
          this.#writing = 0;
          this.#fail(err);
          return;
        }
        this.#writing = 0;
        this.#queue.splice(0, run.length);
        for (const entry of run) this.#steps.publish(entry.item);
        for (const entry of run) entry.resolve();
      }
    } finally {
      this.#active = false;
    }
  }

  /** Stops the store; a run being written still lands and settles, as it would have without the failure. */
  #fail(err: unknown): Error {
    this.#failure ??= this.#steps.describeFailure(err);
    const unfinished = this.#queue.splice(this.#writing);
    for (const entry of unfinished) entry.reject(this.#failure);
    return this.#failure;
  }
}
