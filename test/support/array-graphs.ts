/**
 * Process graphs of pure array work, the shape that once took a server down (arrays made by `array_create` with a
 * large `repeat`, sorted or not, each reduced by `first`, the branches summed), and a loop of `/health` requests
 * that measures how fast the server answers while such a graph runs.
 */
import { setTimeout as sleep } from 'node:timers/promises';

const PROBE_PAUSE_MS = 5;

export interface ArrayBranch {
  /** The elements repeated. */
  values: number[];
  repeat: number;
  /** Whether the array is sorted before `first` reads it. */
  sort: boolean;
  /** Whether the array is concatenated with itself (`array_concat`) first, doubling it. */
  concat?: boolean;
}

/** `{"process": {"process_graph": ...}}` summing `first` of every branch. */
export function arrayGraph(branches: readonly ArrayBranch[]): { process: { process_graph: Record<string, unknown> } } {
  const graph: Record<string, unknown> = {};
  branches.forEach(({ values, repeat, sort, concat }, i) => {
    graph[`create${i}`] = { process_id: 'array_create', arguments: { data: values, repeat } };
    let last = `create${i}`;
    if (concat) {
      graph[`concat${i}`] = {
        process_id: 'array_concat',
        arguments: { array1: { from_node: last }, array2: { from_node: last } },
      };
      last = `concat${i}`;
    }
    if (sort) {
      graph[`sort${i}`] = { process_id: 'sort', arguments: { data: { from_node: last } } };
      last = `sort${i}`;
    }
    graph[`first${i}`] = { process_id: 'first', arguments: { data: { from_node: last } } };
  });
  graph.sum = {
    process_id: 'sum',
    arguments: { data: branches.map((_, i) => ({ from_node: `first${i}` })) },
    result: true,
  };
  return { process: { process_graph: graph } };
}

/** What `arrayGraph(branches)` answers when it runs: the sum of each branch's first (or, sorted, least) value. */
export const expectedSum = (branches: readonly ArrayBranch[]): number =>
  branches.reduce((sum, { values, sort }) => sum + (sort ? Math.min(...values) : values[0]!), 0);

export const postResult = (url: string, body: unknown): Promise<Response> =>
  fetch(`${url}/result`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/**
 * The times (ms) of `/health` requests made one after the other, a few milliseconds apart as a probe's are, until
 * `until` settles; each must answer 200. The pause keeps the loop (which shares the server's main thread) from
 * being a busy thread itself, which a loaded machine's scheduler would serve last.
 */
export async function healthTimesWhile(url: string, until: Promise<unknown>): Promise<number[]> {
  let settled = false;
  void until.finally(() => (settled = true)).catch(() => {});
  const times: number[] = [];
  while (!settled) {
    const started = performance.now();
    const response = await fetch(`${url}/health`);
    await response.arrayBuffer();
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`/health answered ${response.status}`);
    await sleep(PROBE_PAUSE_MS);
  }
  return times;
}

/** The 99th percentile of `times` (nearest rank). */
export function p99(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}
