import { describe, expect, it } from 'vitest';
import { runProcessGraph, validateProcessGraph } from '../engine.ts';
import { ProcessingError, type ProcessingErrorCode } from '../errors.ts';
import type { UserProcess } from './types.ts';

const node = (process_id: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  process_id,
  arguments: args,
  ...extra,
});
const result = (process_id: string, args: Record<string, unknown> = {}) => node(process_id, args, { result: true });

async function refusal(graph: unknown, options: Parameters<typeof validateProcessGraph>[1] = {}) {
  try {
    await validateProcessGraph(graph, options);
  } catch (err) {
    if (err instanceof ProcessingError) return err;
    throw err;
  }
  throw new Error('the graph was accepted');
}

const nested = (depth: number): unknown =>
  depth === 0
    ? { process_graph: { a: result('absolute', { x: { from_parameter: 'x' } }) } }
    : {
        process_graph: {
          a: result('apply', { data: { from_parameter: 'x' }, process: nested(depth - 1) }),
        },
      };

describe('parsing and validating a process graph', () => {
  it.each<[string, unknown, ProcessingErrorCode, string | undefined]>([
    ['no graph at all', undefined, 'ProcessGraphMissing', undefined],
    ['an empty graph', {}, 'ProcessGraphMissing', undefined],
    ['a graph that is an array', [result('pi')], 'ProcessGraphInvalid', undefined],
    ['a node that is not an object', { a: 3 }, 'ProcessGraphInvalid', 'a'],
    ['a node without process_id', { a: { arguments: {}, result: true } }, 'ProcessGraphInvalid', 'a'],
    ['no result node', { a: node('pi') }, 'ProcessGraphInvalid', undefined],
    ['two result nodes', { a: result('pi'), b: result('e') }, 'ProcessGraphInvalid', undefined],
    [
      'a reference to a missing node',
      { a: result('absolute', { x: { from_node: 'nope' } }) },
      'ProcessGraphInvalid',
      'a',
    ],
    [
      'a cycle',
      {
        a: node('absolute', { x: { from_node: 'b' } }),
        b: node('absolute', { x: { from_node: 'a' } }),
        c: result('absolute', { x: { from_node: 'a' } }),
      },
      'ProcessGraphInvalid',
      'a',
    ],
    ['a self-reference', { a: result('absolute', { x: { from_node: 'a' } }) }, 'ProcessGraphInvalid', 'a'],
    ['an unknown process', { a: result('make_coffee') }, 'ProcessUnsupported', 'a'],
    ['an unknown namespace', { a: { ...result('absolute', { x: 1 }), namespace: 'vito' } }, 'ProcessUnsupported', 'a'],
    [
      'the user namespace without user processes',
      { a: { ...result('pi'), namespace: 'user' } },
      'ProcessUnsupported',
      'a',
    ],
    ['an unknown argument', { a: result('absolute', { x: 1, y: 2 }) }, 'ProcessParameterUnsupported', 'a'],
    ['a missing required argument', { a: result('add', { x: 1 }) }, 'ProcessParameterRequired', 'a'],
    ['a string for a number', { a: result('add', { x: 'one', y: 2 }) }, 'ProcessParameterInvalid', 'a'],
    [
      'a value outside an enum',
      { a: result('date_shift', { date: '2020-01-01', value: 1, unit: 'fortnight' }) },
      'ProcessParameterInvalid',
      'a',
    ],
    [
      'a value below a minimum',
      { a: result('array_create', { data: [1], repeat: 0 }) },
      'ProcessParameterInvalid',
      'a',
    ],
    ['a float for an integer', { a: result('round', { x: 1.5, p: 0.5 }) }, 'ProcessParameterInvalid', 'a'],
    [
      'an undefined parameter',
      { a: result('absolute', { x: { from_parameter: 'nope' } }) },
      'ProcessParameterMissing',
      'a',
    ],
    [
      'a callback where a number is expected',
      { a: result('absolute', { x: nested(0) }) },
      'ProcessParameterInvalid',
      'a',
    ],
    [
      'a reference with extra keys',
      { a: result('absolute', { x: { from_node: 'b', hint: 1 } }) },
      'ProcessGraphInvalid',
      'a',
    ],
    [
      'callbacks nested too deep',
      { c: node('create_data_cube'), a: result('apply', { data: { from_node: 'c' }, process: nested(20) }) },
      'ProcessGraphComplexity',
      undefined,
    ],
    [
      'a literal nested too deep',
      { a: result('constant', { x: JSON.parse('['.repeat(150) + ']'.repeat(150)) }) },
      'ProcessParameterInvalid',
      'a',
    ],
  ])('refuses %s', async (_, graph, code, at) => {
    const error = await refusal(graph);
    expect(error.code).toBe(code);
    expect(error.status).toBeGreaterThanOrEqual(400);
    expect(error.status).toBeLessThan(500);
    if (at) expect(error.node?.split('/')[0]).toBe(at);
    if (at) expect(error.message).toContain(`(node '${at}`);
  });

  it('refuses a graph with more nodes than the limit, before evaluating anything', async () => {
    const graph = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`n${i}`, node('pi')]));
    graph.n49 = result('pi');
    expect((await refusal(graph, { limits: { maxNodes: 20 } })).code).toBe('ProcessGraphComplexity');
  });

  it('names the nested node of a callback in the message', async () => {
    const error = await refusal({
      cube: node('create_data_cube'),
      outer: result('apply', {
        data: { from_node: 'cube' },
        process: { process_graph: { inner: result('add', { x: 'a', y: 1 }) } },
      }),
    });
    expect(error.node).toBe('outer/inner');
    expect(error.code).toBe('ProcessParameterInvalid');
    expect(error.message).toContain("(node 'outer/inner')");
  });

  it('accepts a long chain of nodes without exhausting the stack', async () => {
    const graph: Record<string, unknown> = { n0: node('pi') };
    for (let i = 1; i < 1500; i++) graph[`n${i}`] = node('absolute', { x: { from_node: `n${i - 1}` } });
    (graph.n1499 as Record<string, unknown>).result = true;
    expect(await runProcessGraph(graph, { limits: { maxNodes: 2000 } })).toBeCloseTo(Math.PI);
  });
});

describe('evaluating a process graph', () => {
  it('runs nodes in dependency order whatever their order in the JSON', async () => {
    const graph = {
      sum: result('add', { x: { from_node: 'two' }, y: { from_node: 'three' } }),
      three: node('constant', { x: 3 }),
      two: node('constant', { x: 2 }),
    };
    expect(await runProcessGraph(graph)).toBe(5);
  });

  it('resolves parameters of enclosing graphs inside callbacks (openEO scoping)', async () => {
    const graph = {
      count: result('count', {
        data: [1, 2, 3, 4],
        condition: {
          process_graph: { gt: result('gt', { x: { from_parameter: 'x' }, y: { from_parameter: 'limit' } }) },
        },
      }),
    };
    expect(await runProcessGraph(graph, { arguments: { limit: 2 } })).toBe(2);
  });

  it('checks values that only exist at run time against the schemas', async () => {
    const graph = {
      text: node('text_concat', { data: ['a'] }),
      sum: result('add', { x: { from_node: 'text' }, y: 1 }),
    };
    await expect(runProcessGraph(graph)).rejects.toMatchObject({ code: 'ProcessParameterInvalid', node: 'sum' });
  });

  const userProcesses = (definitions: UserProcess[]) => ({
    get: async (id: string) => definitions.find((d) => d.id === id),
  });

  it('calls a user-defined process by id with its arguments and parameter defaults', async () => {
    const resolver = userProcesses([
      {
        id: 'scale',
        parameters: [
          { name: 'value', description: '', schema: { type: 'number' } },
          { name: 'factor', description: '', schema: { type: 'number' }, optional: true, default: 10 },
        ],
        process_graph: { m: result('multiply', { x: { from_parameter: 'value' }, y: { from_parameter: 'factor' } }) },
      },
    ]);
    expect(await runProcessGraph({ s: result('scale', { value: 4 }) }, { userProcesses: resolver })).toBe(40);
    expect(
      await runProcessGraph(
        { s: { ...result('scale', { value: 4, factor: 2 }), namespace: 'user' } },
        { userProcesses: resolver },
      ),
    ).toBe(8);
    const unknownArgument = await refusal({ s: result('scale', { value: 4, offset: 1 }) }, { userProcesses: resolver });
    expect(unknownArgument.code).toBe('ProcessParameterUnsupported');
  });

  it('prefers a user-defined process over a predefined one in the default namespace, not in `backend`', async () => {
    const resolver = userProcesses([{ id: 'pi', parameters: [], process_graph: { c: result('constant', { x: 3 }) } }]);
    expect(await runProcessGraph({ p: result('pi') }, { userProcesses: resolver })).toBe(3);
    expect(
      await runProcessGraph({ p: { ...result('pi'), namespace: 'backend' } }, { userProcesses: resolver }),
    ).toBeCloseTo(Math.PI);
  });

  it('refuses user-defined processes that call themselves, directly or not', async () => {
    const resolver = userProcesses([
      { id: 'ping', process_graph: { p: result('pong') } },
      { id: 'pong', process_graph: { p: result('ping') } },
    ]);
    const error = await refusal({ start: result('ping') }, { userProcesses: resolver });
    expect(error.code).toBe('ProcessGraphInvalid');
    expect(error.message).toContain('ping -> pong -> ping');
  });
});
