import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { watchMemory } from './memory-watch.ts';

const MB = 1024 * 1024;
let worker: Worker;
afterEach(() => worker.terminate());

/** A thread with a 64 MB heap limit that holds `arrays` Float64Arrays of 100 MB each, outside its heap. */
function holding(arrays: number): Worker {
  const source = `globalThis.held = Array.from({ length: ${arrays} }, () => new Float64Array(${(100 * MB) / 8}).fill(1));
    require('node:worker_threads').parentPort.postMessage('holding');
    setInterval(() => {}, 1000);`;
  return new Worker(source, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64 } });
}

const untilHolding = (w: Worker) => new Promise((resolve) => w.once('message', resolve));

describe('the memory watch of a synchronous run', () => {
  it("sees buffers past the limit that the thread's heap limit lets through", async () => {
    worker = holding(5);
    await untilHolding(worker);
    const held = await new Promise<number>((resolve) => watchMemory(worker, 256 * MB, resolve, 20));
    expect(held).toBeGreaterThan(500 * MB);
  });

  it('says nothing of a thread within the limit, nor once stopped', async () => {
    worker = holding(1);
    await untilHolding(worker);
    let calls = 0;
    const watch = watchMemory(worker, 256 * MB, () => calls++, 20);
    await new Promise((resolve) => setTimeout(resolve, 300));
    watch.stop();
    const stopped = watchMemory(worker, 1, () => calls++, 20);
    stopped.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls).toBe(0);
  });
});
