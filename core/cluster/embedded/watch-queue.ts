import type { WatchEvent } from '../port.ts';

/**
 * An unbounded per-watcher queue: the store pushes synchronously while it writes, the consumer pulls at its own
 * pace, so a slow consumer delays only itself and never loses an event.
 */
export class WatchQueue implements AsyncIterableIterator<WatchEvent> {
  #events: WatchEvent[] = [];
  #waiting: ((result: IteratorResult<WatchEvent>) => void) | undefined;
  #closed = false;
  #onClose: () => void;

  constructor(onClose: () => void) {
    this.#onClose = onClose;
  }

  push(event: WatchEvent): void {
    if (this.#closed) return;
    if (this.#waiting) {
      const resolve = this.#waiting;
      this.#waiting = undefined;
      resolve({ value: event, done: false });
    } else this.#events.push(event);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose();
    this.#waiting?.({ value: undefined, done: true });
    this.#waiting = undefined;
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    const event = this.#events.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  return(): Promise<IteratorResult<WatchEvent>> {
    this.close();
    this.#events = [];
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
