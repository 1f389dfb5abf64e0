/**
 * `POST /result` cannot take the server down: a run executes in a worker thread with its own heap limit, its
 * arrays count against one memory budget across the graph, and a run past its wall time is terminated however
 * tight its loop. Each refusal is a 400 naming its configuration key, and the server answers `/health` fast
 * meanwhile and keeps serving after. Against a listening server: the probes go through its event loop.
 */
import { describe, expect, it } from 'vitest';
import { arrayGraph, healthTimesWhile, p99, postResult } from '../../../test/support/array-graphs.ts';
import { build } from '../../test/build.ts';

async function listening(config: string): Promise<string> {
  const built = await build(`instance.bbox = -13.5,6.9,-10.2,10.0\n${config}`);
  return built.app.listen({ port: 0, host: '127.0.0.1' });
}

/**
 * Sorting 24 arrays of 900,000 elements takes several times the time limit (about 10 s on a 2-core machine of 2026,
 * where 12 arrays took 4.9 s: under the limit) and stays within the memory limits.
 */
const SORTING_LIMITS =
  'processing.sync.timeout = 5\nprocessing.sync.max_memory = 400MB\nprocessing.sync.heap_size = 1GB';
const sorting = arrayGraph(Array.from({ length: 24 }, () => ({ values: [3, 1, 2], repeat: 300_000, sort: true })));

/** The server still runs graphs and answers `/health`. */
async function expectServing(url: string): Promise<void> {
  expect((await fetch(`${url}/health`)).status).toBe(200);
  const small = await postResult(url, arrayGraph([{ values: [3, 1, 2], repeat: 2, sort: true }]));
  expect(small.status).toBe(200);
  expect(await small.json()).toBe(1);
}

describe('POST /result isolation', () => {
  // 40 arrays of 1,000,000 elements, 8 MB each, each within every per-array limit, into `first`, summed.
  const manyArrays = arrayGraph(Array.from({ length: 40 }, () => ({ values: [1], repeat: 1_000_000, sort: false })));

  it.each([
    {
      name: 'refuses many large arrays past processing.sync.max_memory, counted across the graph (spent by the fifth)',
      config: 'processing.sync.max_memory = 32MB\nprocessing.sync.heap_size = 512MB',
      key: 'processing.sync.max_memory',
    },
    {
      name: "terminates the run's thread past processing.sync.heap_size when the budget is set above it (V8's limit, the backstop)",
      config: 'processing.sync.max_memory = 8GB\nprocessing.sync.heap_size = 96MB',
      key: 'processing.sync.heap_size',
    },
  ])('$name: 400 naming the key, and the server keeps serving', async ({ config, key }) => {
    const url = await listening(config);
    const response = await postResult(url, manyArrays);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'ProcessGraphComplexity',
      message: expect.stringContaining(key),
    });
    await expectServing(url);
  });

  it('stops sorting arrays at processing.sync.timeout, within a margin of it', async () => {
    const url = await listening(SORTING_LIMITS.replace('timeout = 5', 'timeout = 2'));
    const started = performance.now();
    const response = await postResult(url, sorting);
    const after = performance.now() - started;
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'ProcessGraphComplexity',
      message: expect.stringContaining('processing.sync.timeout'),
    });
    // The limit, plus a margin for a loaded machine; the graph alone takes several times longer.
    expect(after).toBeGreaterThanOrEqual(1_950);
    expect(after).toBeLessThan(3_500);
    await expectServing(url);
  });

  it('lets a run past processing.sync.concurrency wait for a free thread, then answers it', async () => {
    const url = await listening(
      SORTING_LIMITS.replace('timeout = 5', 'timeout = 3') + '\nprocessing.sync.concurrency = 1',
    );
    const ended: string[] = [];
    const first = postResult(url, sorting).then((response) => (ended.push('first'), response.status));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const second = postResult(url, arrayGraph([{ values: [5, 4], repeat: 10, sort: true }])).then(async (response) => {
      ended.push('second');
      return { status: response.status, body: (await response.json()) as unknown };
    });
    expect(await first).toBe(400);
    expect(await second).toEqual({ status: 200, body: 4 });
    expect(ended).toEqual(['first', 'second']);
  });

  it('answers /health in under 100 ms (p99) while the heaviest graph the limits allow runs', async () => {
    const url = await listening(SORTING_LIMITS);
    const run = postResult(url, sorting).then((response) => response.status);
    const times = await healthTimesWhile(url, run);
    // The graph runs until its time limit ends it.
    expect(await run).toBe(400);
    expect(times.length).toBeGreaterThan(100);
    expect(p99(times)).toBeLessThan(100);
  });
});
