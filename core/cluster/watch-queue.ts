import type { WatchEvent } from './port.ts';

/**
 * An unbounded per-watcher queue: the producer (the embedded store while it writes, or a watch stream from the
 * API server) pushes synchronously, the consumer pulls at its own pace, so a slow consumer delays only itself
 * and never loses an event. A failure is delivered after the events that preceded it.
 */
export class WatchQueue implements AsyncIterableIterator<WatchEvent> {
  #events: WatchEvent[] = [];
  #waiting: { resolve: (result: IteratorResult<WatchEvent>) => void; reject: (err: unknown) => void } | undefined;
  #closed = false;
  #failure: { error: unknown } | undefined;
  #onClose: () => void;

  constructor(onClose: () => void) {
    this.#onClose = onClose;
  }

  push(event: WatchEvent): void {
    if (this.#closed) return;
    if (this.#waiting) {
      const { resolve } = this.#waiting;
      this.#waiting = undefined;
      resolve({ value: event, done: false });
    } else this.#events.push(event);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose();
    this.#waiting?.resolve({ value: undefined, done: true });
    this.#waiting = undefined;
  }

  /** Ends the queue with an error: the consumer gets the events already queued, then the error is thrown. */
  fail(error: unknown): void {
    if (this.#closed) return;
    this.#failure = { error };
    this.#closed = true;
    this.#onClose();
    this.#waiting?.reject(error);
    this.#waiting = undefined;
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    const event = this.#events.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.#failure) {
      const { error } = this.#failure;
      this.#failure = undefined;
      return Promise.reject(error);
    }
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.#waiting = { resolve, reject }));
  }

  return(): Promise<IteratorResult<WatchEvent>> {
    this.close();
    this.#events = [];
    this.#failure = undefined;
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
