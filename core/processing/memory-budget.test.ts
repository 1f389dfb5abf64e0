import { describe, expect, it } from 'vitest';
import { runProcessGraph } from './engine.ts';
import { ProcessingError } from './errors.ts';
import { MemoryBudget } from './memory-budget.ts';

/** `count` arrays of 1,000 elements made by `array_create`, each into `first`, summed. */
function arrays(count: number): Record<string, unknown> {
  const graph: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    graph[`a${i}`] = { process_id: 'array_create', arguments: { data: [i], repeat: 1_000 } };
    graph[`f${i}`] = { process_id: 'first', arguments: { data: { from_node: `a${i}` } } };
  }
  graph.sum = {
    process_id: 'sum',
    arguments: { data: Array.from({ length: count }, (_, i) => ({ from_node: `f${i}` })) },
    result: true,
  };
  return graph;
}

const KEY = 'processing.sync.max_memory';

describe('the memory budget of a run', () => {
  it('counts the arrays of every node together, refusing the run once they exceed it, and gives them back at its end', async () => {
    // Three arrays of 8,000 bytes: each fits, all three do not fit 20,000 bytes.
    const tight = new MemoryBudget(20_000, KEY);
    const refused = await runProcessGraph(arrays(3), { memory: tight }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ProcessingError);
    expect(refused).toMatchObject({ code: 'ProcessGraphComplexity', message: expect.stringContaining(KEY) });
    expect((refused as ProcessingError).message).toContain("node 'a2'");

    const enough = new MemoryBudget(24_000, KEY);
    expect(await runProcessGraph(arrays(3), { memory: enough })).toBe(3);
    expect(enough.usedBytes).toBe(0);
    expect(await runProcessGraph(arrays(3))).toBe(3);
  });

  it('refuses array_create before it allocates an array the budget cannot hold', async () => {
    const budget = new MemoryBudget(1_000_000, KEY);
    const graph = { a: { process_id: 'array_create', arguments: { data: [1, 2], repeat: 4_000_000 }, result: true } };
    await expect(runProcessGraph(graph, { memory: budget })).rejects.toMatchObject({
      code: 'ProcessGraphComplexity',
      message: expect.stringMatching(
        /array of 8000000 elements of array_create would take about 64000000 bytes.*processing\.sync\.max_memory/,
      ),
    });
    expect(budget.usedBytes).toBe(0);
  });

  it("counts a callback's arrays only until the callback returns", async () => {
    // Each call of the callback makes an array of 1,000 elements and returns its first: 10 calls never hold two.
    const budget = new MemoryBudget(10_000, KEY);
    const graph = {
      count: {
        process_id: 'count',
        arguments: {
          data: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
          condition: {
            process_graph: {
              a: { process_id: 'array_create', arguments: { data: [{ from_parameter: 'x' }], repeat: 1_000 } },
              f: { process_id: 'first', arguments: { data: { from_node: 'a' } } },
              eq: { process_id: 'eq', arguments: { x: { from_node: 'f' }, y: { from_parameter: 'x' } }, result: true },
            },
          },
        },
        result: true,
      },
    };
    expect(await runProcessGraph(graph, { memory: budget })).toBe(10);
    expect(budget.usedBytes).toBe(0);
  });
});
