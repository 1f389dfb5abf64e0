/**
 * Yields `read(0)`, ..., `read(count - 1)` in order while up to `depth` of them are in flight, so that waiting on
 * one (a remote fetch, a chunk decoded on a worker thread) overlaps with the consumer's work on the one before. A
 * failed read surfaces when its turn comes; reads still in flight when the consumer stops finish unobserved.
 */
export async function* readAhead<T>(count: number, read: (i: number) => Promise<T>, depth: number): AsyncGenerator<T> {
  const pending: Promise<T>[] = [];
  let next = 0;
  for (let i = 0; i < count; i++) {
    while (next < count && next < i + depth) {
      const started = read(next++);
      // Observed now so that a failure ahead of its turn is not an unhandled rejection.
      started.catch(() => undefined);
      pending.push(started);
    }
    yield await pending.shift()!;
  }
}
