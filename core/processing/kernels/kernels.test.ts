import { describe, expect, it } from 'vitest';
import { Callback } from '../evaluate/callback.ts';
import { Scope } from '../evaluate/scope.ts';
import { DEFAULT_LIMITS } from '../graph/limits.ts';
import { parseProcessGraph } from '../graph/parse.ts';
import type { CellKind, ProcessContext } from '../process.ts';
import { builtInRegistry, catalogueOf } from '../registry.ts';
import { fromCell, toCell } from './cells.ts';
import { compileKernel } from './compile.ts';
import { kernelProgram } from './program.ts';

const registry = builtInRegistry();
const context: ProcessContext = {
  limits: DEFAULT_LIMITS,
  signal: undefined,
  node: 'test',
  services: {},
  processes: registry,
};
const NUMBERS = [0, -0, 1, -1, 2.5, -3.5, 0.5, 1e300, -1e-300, Infinity, -Infinity, NaN, 7, 0.35];
const BOOLEANS = [0, 1, NaN];

/** Constant arguments to try per process (defaults otherwise). */
const VARIANTS: Record<string, Record<string, unknown>[]> = {
  eq: [{}, { delta: 0.6 }],
  neq: [{}, { delta: 0.6 }],
  round: [{ p: 0 }, { p: 1 }, { p: -1 }],
  clip: [{ min: -1, max: 2 }],
  linear_scale_range: [
    { inputMin: -1, inputMax: 3 },
    { inputMin: 5, inputMax: 0, outputMin: 2, outputMax: -2 },
  ],
  between: [
    { min: -1, max: 1 },
    { min: 0, max: 7, exclude_max: true },
  ],
};

async function callbackOf(process: string, inputs: readonly string[], constants: Record<string, unknown>) {
  const args = Object.fromEntries([...inputs.map((n) => [n, { from_parameter: n }]), ...Object.entries(constants)]);
  const graph = await parseProcessGraph(
    { c: { process_id: process, arguments: args, result: true } },
    {
      processes: catalogueOf(registry),
      limits: DEFAULT_LIMITS,
      parameters: inputs.map((name) => ({ name, description: '', schema: {} })),
    },
  );
  return new Callback(graph, new Scope({}), async () => undefined);
}

function* combinations(kinds: CellKind[]): Generator<number[]> {
  const pools = kinds.map((k) => (k === 'boolean' ? BOOLEANS : NUMBERS));
  const index = pools.map(() => 0);
  for (;;) {
    yield index.map((i, k) => pools[k]![i]!);
    let d = pools.length - 1;
    while (d >= 0 && ++index[d]! >= pools[d]!.length) index[d--] = 0;
    if (d < 0) return;
  }
}

describe('kernels compiled from element-wise processes', () => {
  const elementwise = registry.ids().filter((id) => registry.get(id)!.elementwise);

  it('cover the arithmetic, comparison and logic processes', () => {
    expect(elementwise).toEqual(
      expect.arrayContaining(['add', 'divide', 'eq', 'and', 'if', 'linear_scale_range', 'round', 'clip']),
    );
  });

  it.each(elementwise)('%s gives in a kernel what its scalar definition gives, with NaN as nodata', async (id) => {
    const process = registry.get(id)!;
    const spec = process.elementwise!;
    const parameters = process.description.parameters;
    const inputs = spec.inputs.filter((name) => parameters.some((p) => p.name === name && !p.optional) || id === 'if');
    const kindsOf = (name: string): CellKind[] => {
      const schema = JSON.stringify(parameters.find((p) => p.name === name)!.schema);
      if (schema.includes('boolean') && !schema.includes('number')) return ['boolean'];
      return schema.includes('boolean') && !schema.includes('"Any') ? ['number', 'boolean'] : ['number'];
    };
    let checked = 0;
    for (const constants of VARIANTS[id] ?? [{}]) {
      const callback = await callbackOf(id, inputs, constants);
      const kinds = inputs.map((n) => kindsOf(n)[0]!);
      const program = kernelProgram(
        callback,
        { inputs: Object.fromEntries(inputs.map((n, i) => [n, { index: i, kind: kinds[i]! }])) },
        registry,
      );
      expect(program, `${id} compiles`).toBeDefined();
      const kernel = compileKernel(program!, registry, context);
      for (const values of combinations(kinds)) {
        const out = new Float64Array(1);
        kernel(
          values.map((v) => Float64Array.of(v)),
          out,
          1,
        );
        const args: Record<string, unknown> = {};
        for (const p of parameters) if ('default' in p) args[p.name] = p.default;
        Object.assign(args, constants);
        inputs.forEach((n, i) => (args[n] = fromCell(values[i]!, kinds[i]!)));
        const expected = toCell(process.run(args, context));
        expect(
          Object.is(out[0], expected) || out[0] === expected,
          `${id}(${values.join(', ')}) ${JSON.stringify(constants)}`,
        ).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('fuses a whole callback into one kernel and refuses to compile a non-element-wise one', async () => {
    const graph = await parseProcessGraph(
      {
        a: { process_id: 'multiply', arguments: { x: { from_parameter: 'x' }, y: 2 } },
        b: { process_id: 'add', arguments: { x: { from_node: 'a' }, y: { from_parameter: 'context' } } },
        c: { process_id: 'gt', arguments: { x: { from_node: 'b' }, y: 5 }, result: true },
      },
      {
        processes: catalogueOf(registry),
        limits: DEFAULT_LIMITS,
        parameters: [
          { name: 'x', description: '', schema: {} },
          { name: 'context', description: '', schema: {} },
        ],
      },
    );
    const callback = new Callback(graph, new Scope({}), async () => undefined);
    const program = kernelProgram(
      callback,
      { inputs: { x: { index: 0, kind: 'number' } }, constants: { context: 1 } },
      registry,
    )!;
    expect(program.steps.map((s) => s.process)).toEqual(['multiply', 'add', 'gt']);
    expect(program.resultKind).toBe('boolean');
    const out = new Float64Array(3);
    compileKernel(program, registry, context)([Float64Array.of(1, 3, NaN)], out, 3);
    expect(Array.from(out)).toEqual([0, 1, NaN]);
    const text = await callbackOf('text_begins', ['data'], { pattern: 'a' });
    expect(kernelProgram(text, { inputs: { data: { index: 0, kind: 'number' } } }, registry)).toBeUndefined();
  });
});
