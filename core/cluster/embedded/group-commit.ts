/**
 * Group commit: changes accepted one at a time are written to disk together. The first change staged starts a
 * write; the changes staged while it runs go together into the next, so under load one flush carries many
 * changes and an idle store still writes each change at once. Each stage's promise settles when its group is
 * durable and published. A failed write fails its group and everything staged after it, and every later stage
 * (fail-stop, as etcd stops on a failed fsync): those changes were decided on writes that never landed.
 */
export class GroupCommit<T> {
  readonly #write: (group: readonly T[]) => Promise<void>;
  readonly #publish: (item: T) => void;
  readonly #describe: (err: unknown) => Error;
  #staged: T[] = [];
  #next: { promise: Promise<void>; resolve(): void; reject(err: unknown): void } | undefined;
  #running: Promise<void> | undefined;
  #failure: Error | undefined;

  constructor(options: {
    write: (group: readonly T[]) => Promise<void>;
    publish: (item: T) => void;
    describeFailure: (err: unknown) => Error;
  }) {
    this.#write = options.write;
    this.#publish = options.publish;
    this.#describe = options.describeFailure;
  }

  /** Why writes stopped, once one failed. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  stage(item: T): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    this.#staged.push(item);
    this.#next ??= deferred();
    this.#running ??= this.#run();
    return this.#next.promise;
  }

  /** Settles when every change staged so far is durable; undefined when none is pending. */
  pending(): Promise<void> | undefined {
    return this.#next?.promise ?? this.#running;
  }

  async #run(): Promise<void> {
    try {
      while (this.#staged.length > 0) {
        // Let the steps already queued stage their changes into this group.
        await new Promise((resolve) => setImmediate(resolve));
        const group = this.#staged;
        const settled = this.#next!;
        this.#staged = [];
        this.#next = undefined;
        try {
          await this.#write(group);
        } catch (err) {
          this.#failure = this.#describe(err);
          settled.reject(this.#failure);
          (this.#next as typeof settled | undefined)?.reject(this.#failure);
          this.#next = undefined;
          this.#staged = [];
          return;
        }
        for (const item of group) this.#publish(item);
        settled.resolve();
      }
    } finally {
      this.#running = undefined;
    }
  }
}

function deferred() {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers await it; a failure nobody waits for must not be an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
