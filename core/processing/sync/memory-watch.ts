/**
 * V8's `resourceLimits` bound a thread's heap, not the buffers of its typed arrays (chunks of cubes, decoded store
 * bytes), which live outside the heap: a run could hold gigabytes in them under a small heap limit. The watch asks
 * the thread's V8 for both every `intervalMs` and calls `exceeded` once their sum passes `limitBytes`.
 */
import type { Worker } from 'node:worker_threads';

export interface MemoryWatch {
  stop(): void;
}

export function watchMemory(
  worker: Worker,
  limitBytes: number,
  exceeded: (heldBytes: number) => void,
  intervalMs = 100,
): MemoryWatch {
  let stopped = false;
  const timer = setInterval(() => {
    worker.getHeapStatistics().then(
      ({ used_heap_size, external_memory }) => {
        const held = used_heap_size + external_memory;
        if (stopped || held <= limitBytes) return;
        stopped = true;
        clearInterval(timer);
        exceeded(held);
      },
      // A thread that has just ended has no statistics: its exit is answered elsewhere.
      () => {},
    );
  }, intervalMs);
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
