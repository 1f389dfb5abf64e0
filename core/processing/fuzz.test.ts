/**
 * Generated hostile graphs: random processes (and unknown ones), arguments of every JSON type with huge and
 * odd numbers, missing and extra parameters, references to missing nodes and cycles, undefined parameters,
 * callbacks nested past the limit, deep literals. Every graph must end, quickly, in a result or a
 * ProcessingError with a 4xx status, never another exception.
 */
import { describe, expect, it } from 'vitest';
import { isCube } from './cube/cube.ts';
import { materialize } from './cube/read.ts';
import { runProcessGraph } from './engine.ts';
import { ProcessingError } from './errors.ts';
import { builtInRegistry } from './registry.ts';

const registry = builtInRegistry();
const ids = registry.ids();
const limits = { maxArrayLength: 100_000, maxCubeCells: 1_000_000, maxNodes: 200 };

function generator(seed: number) {
  // Lehmer generator; the seed is spread and the first draws discarded, so that small seeds do not start low.
  let s = ((seed * 2654435761) % 2147483646) + 1;
  const next = () => (s = (s * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < 8; i++) next();
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const NUMBERS = [0, -1, 1, 2, 3.5, 1e308, -1e308, 2 ** 53, 1e-320, 7, 1000, 1e9, -0.5, 12];
  const STRINGS = [
    '',
    'x',
    'red',
    '2020-01-01',
    '2020-01-01T00:00:00Z',
    '06:00:00',
    'EPSG:4326',
    'day',
    'near',
    'ü'.repeat(50),
  ];

  const literal = (depth: number): unknown => {
    switch (int(depth > 4 ? 5 : 8)) {
      case 0:
        return pick(NUMBERS);
      case 1:
        return pick(STRINGS);
      case 2:
        return next() < 0.5;
      case 3:
        return null;
      case 4:
        return int(10);
      case 5:
        return Array.from({ length: int(4) }, () => literal(depth + 1));
      case 6:
        return Object.fromEntries(
          Array.from({ length: int(3) }, (_, i) => [
            pick(['type', 'west', 'east', 'coordinates', `k${i}`]),
            literal(depth + 1),
          ]),
        );
      default: {
        // A deep literal, sometimes past the limit.
        let v: unknown = 1;
        for (let i = int(160); i > 0; i--) v = [v];
        return v;
      }
    }
  };

  const graph = (depth: number, nodeNames: string[] = []): Record<string, unknown> => {
    const names = Array.from({ length: 1 + int(5) }, (_, i) => `n${depth}_${i}`);
    const nodes: Record<string, unknown> = {};
    for (const name of names) {
      const id = next() < 0.05 ? pick(['nope', 'load_stac', '__proto__', 'run_udf']) : pick(ids);
      const description = registry.get(id)?.description;
      const args: Record<string, unknown> = {};
      for (const p of description?.parameters ?? [{ name: 'x' }]) {
        if (next() < 0.1) continue; // a parameter left out
        const roll = next();
        if (roll < 0.3) args[p.name] = { from_node: pick([...names, 'missing']) };
        else if (roll < 0.38)
          args[p.name] = { from_parameter: pick(['x', 'data', 'context', 'value', 'undefined_one']) };
        else if (roll < 0.48 && depth < 24) args[p.name] = { process_graph: graph(depth + 1) };
        else args[p.name] = literal(0);
      }
      if (next() < 0.05) args.unexpected = 1;
      nodes[name] = {
        process_id: id,
        arguments: args,
        ...(next() < 0.05 ? { namespace: pick(['user', 'backend', 'elsewhere']) } : {}),
      };
    }
    const results = next() < 0.05 ? 0 : next() < 0.05 ? 2 : 1;
    for (let i = 0; i < results; i++)
      (nodes[names[(names.length - 1 - i + names.length) % names.length]!] as Record<string, unknown>).result = true;
    void nodeNames;
    return nodes;
  };
  /** A valid graph with one to three mutations, so that hostile values reach evaluation too. */
  const mutated = (): Record<string, unknown> => {
    const nodes = structuredClone(pick(TEMPLATES)) as Record<
      string,
      { process_id: string; arguments: Record<string, unknown>; result?: boolean }
    >;
    const names = Object.keys(nodes);
    for (let m = 1 + int(3); m > 0; m--) {
      const node = nodes[pick(names)]!;
      const keys = Object.keys(node.arguments);
      const key = keys.length > 0 ? pick(keys) : 'x';
      switch (int(8)) {
        case 0:
          node.arguments[key] = literal(0);
          break;
        case 1:
          node.arguments[key] = pick(NUMBERS);
          break;
        case 2:
          delete node.arguments[key];
          break;
        case 3:
          node.process_id = pick(ids);
          break;
        case 4:
          node.arguments[key] = { from_node: pick(names) };
          break;
        case 5:
          node.result = true;
          break;
        case 6: {
          // Callbacks nested from 10 to 30 deep, in place of a callback argument.
          const host = Object.values(nodes).find((n) => 'process' in n.arguments || 'reducer' in n.arguments);
          if (!host) break;
          let callback: unknown = {
            process_graph: { a: { process_id: 'absolute', arguments: { x: { from_parameter: 'x' } }, result: true } },
          };
          for (let d = 10 + int(20); d > 0; d--)
            callback = {
              process_graph: {
                a: {
                  process_id: 'apply',
                  arguments: { data: { from_parameter: 'x' }, process: callback },
                  result: true,
                },
              },
            };
          host.arguments['process' in host.arguments ? 'process' : 'reducer'] = callback;
          break;
        }
        default:
          node.arguments[key] = pick(STRINGS);
      }
    }
    return nodes;
  };
  return { graph: () => (next() < 0.5 ? graph(0) : mutated()) };
}

const callbackOf = (process: string, args: Record<string, unknown>) => ({
  process_graph: { c: { process_id: process, arguments: args, result: true } },
});
const TEMPLATES: Record<string, unknown>[] = [
  {
    a: { process_id: 'constant', arguments: { x: 5 } },
    b: { process_id: 'add', arguments: { x: { from_node: 'a' }, y: 2 } },
    c: { process_id: 'multiply', arguments: { x: { from_node: 'b' }, y: 3 }, result: true },
  },
  {
    cube: { process_id: 'create_data_cube', arguments: {} },
    t: {
      process_id: 'add_dimension',
      arguments: { data: { from_node: 'cube' }, name: 't', label: '2020-01-01', type: 'temporal' },
    },
    b: {
      process_id: 'add_dimension',
      arguments: { data: { from_node: 't' }, name: 'bands', label: 'b1', type: 'bands' },
    },
    x: { process_id: 'add_dimension', arguments: { data: { from_node: 'b' }, name: 'x', label: 0.5, type: 'spatial' } },
    y: { process_id: 'add_dimension', arguments: { data: { from_node: 'x' }, name: 'y', label: 0.5, type: 'spatial' } },
    apply: {
      process_id: 'apply',
      arguments: { data: { from_node: 'y' }, process: callbackOf('add', { x: { from_parameter: 'x' }, y: 1 }) },
    },
    period: {
      process_id: 'aggregate_temporal_period',
      arguments: {
        data: { from_node: 'apply' },
        period: 'month',
        reducer: callbackOf('mean', { data: { from_parameter: 'data' } }),
      },
    },
    zonal: {
      process_id: 'aggregate_spatial',
      arguments: {
        data: { from_node: 'period' },
        geometries: {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 1],
              [0, 0],
            ],
          ],
        },
        reducer: callbackOf('sum', { data: { from_parameter: 'data' } }),
      },
    },
    reduce: {
      process_id: 'reduce_dimension',
      arguments: {
        data: { from_node: 'zonal' },
        dimension: 'bands',
        reducer: callbackOf('max', { data: { from_parameter: 'data' } }),
      },
      result: true,
    },
  },
  {
    a: { process_id: 'array_create', arguments: { data: [3, 1, 2], repeat: 2 } },
    s: { process_id: 'sort', arguments: { data: { from_node: 'a' } } },
    q: { process_id: 'quantiles', arguments: { data: { from_node: 's' }, probabilities: [0.1, 0.5] } },
    e: { process_id: 'array_element', arguments: { data: { from_node: 'q' }, index: 1 }, result: true },
  },
  {
    d: { process_id: 'date_shift', arguments: { date: '2020-01-31', value: 1, unit: 'month' } },
    b: { process_id: 'date_between', arguments: { x: { from_node: 'd' }, min: '2020-01-01', max: '2021-01-01' } },
    t: {
      process_id: 'text_concat',
      arguments: { data: [{ from_node: 'd' }, { from_node: 'b' }], separator: ' ' },
      result: true,
    },
  },
];

describe('generated hostile process graphs', () => {
  it('start from templates that run as they are', async () => {
    for (const template of TEMPLATES) {
      const value = await runProcessGraph(template, { limits });
      expect(value, JSON.stringify(template).slice(0, 80)).not.toBeUndefined();
    }
  });

  it('always end in a value or a 4xx ProcessingError, quickly', async () => {
    const counts = new Map<string, number>();
    const started = Date.now();
    let slowest = 0;
    for (let seed = 1; seed <= Number(process.env.FUZZ_GRAPHS ?? 3000); seed++) {
      const graph = generator(seed).graph();
      const t0 = Date.now();
      let outcome = 'value';
      try {
        const value = await runProcessGraph(graph, { limits, signal: AbortSignal.timeout(5_000) });
        if (isCube(value)) await materialize(value, limits.maxCubeCells);
      } catch (err) {
        if (!(err instanceof ProcessingError))
          throw new Error(`seed ${seed} raised ${String(err)}\n${JSON.stringify(graph).slice(0, 2000)}`, {
            cause: err,
          });
        expect(err.status, `seed ${seed}: ${err.code}`).toBeGreaterThanOrEqual(400);
        expect(err.status).toBeLessThan(500);
        outcome = err.code;
      }
      counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
      slowest = Math.max(slowest, Date.now() - t0);
    }
    console.log(
      `fuzz: ${process.env.FUZZ_GRAPHS ?? 3000} graphs in ${Date.now() - started} ms, slowest ${slowest} ms:`,
      Object.fromEntries(counts),
    );
    expect(counts.size).toBeGreaterThan(5);
    expect(slowest).toBeLessThan(5_000);
  }, 120_000);
});
