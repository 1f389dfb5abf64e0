/**
 * How a reducer callback (`reduce_dimension`, `aggregate_temporal*`, `aggregate_spatial`) runs over chunks.
 * When every node is a known reducer of the values (`sum`, `mean`, `array_element`, `median`, ...) or an
 * element-wise process of their results (`absolute(mean)`, `divide(nir, red)`), the plan streams: each reducer
 * keeps partial state per cell and the element-wise rest is one compiled kernel over their results. Any other
 * callback gathers each cell's values (bounded by the chunk) and is interpreted once per cell with a labeled
 * array, which gives the same results, more slowly.
 */
import type { Callback } from '../evaluate/callback.ts';
import type { CellKind, ProcessContext, ProcessRegistry, StreamingReducer, ReducerState } from '../process.ts';
import { LabeledArray, type Label } from '../values/labeled-array.ts';
import { fromCell, toCell } from './cells.ts';
import { compileKernel, type Kernel } from './compile.ts';
import { kernelProgram } from './program.ts';

export interface ReducerPlan {
  readonly resultKind: CellKind;
  /** State for `cells` cells whose values along the reduced dimension have `labels`. */
  init(cells: number, labels: readonly Label[]): unknown;
  /** The values at `position` (0-based, in order) for cells `offset ..`. */
  update(state: unknown, offset: number, values: ArrayLike<number>, position: number): void;
  /** One value per cell into `out` (NaN for nodata). */
  finish(state: unknown, out: Float64Array): Promise<void>;
}

interface ReducerNode {
  id: string;
  /** Streaming reducer factory for a group's labels, or a function of all of a cell's values. */
  streaming?: (labels: readonly Label[]) => StreamingReducer;
  gathered?: (values: Float64Array) => number;
  kind: CellKind;
}

/** The kind of value a process returns, from its description's return schema (number unless boolean only). */
export function returnKind(schema: unknown): CellKind {
  const types = (Array.isArray(schema) ? schema : [schema]).flatMap((s) => {
    const t = (s as { type?: unknown }).type;
    return Array.isArray(t) ? t : [t];
  });
  return types.length > 0 && types.every((t) => t === 'boolean' || t === 'null') ? 'boolean' : 'number';
}

/** The plan of reducer `callback` over values of `inputKind`, called with `context`. */
export function reducerPlan(
  callback: Callback,
  inputKind: CellKind,
  context: unknown,
  processContext: ProcessContext,
): ReducerPlan {
  const registry = processContext.processes;
  return (
    compiledPlan(callback, inputKind, context, registry, processContext) ??
    interpretedPlan(callback, inputKind, context, registry)
  );
}

function compiledPlan(
  callback: Callback,
  inputKind: CellKind,
  context: unknown,
  registry: ProcessRegistry,
  processContext: ProcessContext,
): ReducerPlan | undefined {
  const { graph } = callback;
  const reducers: ReducerNode[] = [];
  for (const id of graph.order) {
    const node = graph.nodes.get(id)!;
    if (node.target.kind !== 'predefined') return undefined;
    const data = node.arguments.data;
    if (data?.kind !== 'parameter' || data.name !== 'data') continue;
    const spec = registry.get(node.target.id)?.reducer;
    if (!spec) return undefined;
    const constants: Record<string, unknown> = {};
    for (const parameter of node.description.parameters) {
      if (parameter.name === 'data') continue;
      const argument = node.arguments[parameter.name];
      if (argument === undefined) {
        if ('default' in parameter) constants[parameter.name] = parameter.default;
      } else if (argument.kind === 'literal') constants[parameter.name] = argument.value;
      else if (argument.kind === 'parameter' && argument.name === 'context') constants[parameter.name] = context;
      else if (argument.kind === 'parameter' && argument.name !== 'data')
        constants[parameter.name] = callback.outer(argument.name);
      else return undefined;
    }
    const gathered = spec.gathered?.(constants, inputKind);
    if (gathered) {
      reducers.push({ id, gathered, kind: 'number' });
      continue;
    }
    const probe = spec.streaming?.(constants, inputKind, []);
    if (!probe) return undefined;
    reducers.push({
      id,
      kind: probe.resultKind,
      streaming: (labels) => spec.streaming!(constants, inputKind, labels)!,
    });
  }
  if (reducers.length === 0) return undefined;
  const nodes = new Map(reducers.map((r, index) => [r.id, { index, kind: r.kind }]));
  let kernel: Kernel | undefined;
  let resultKind: CellKind;
  if (nodes.has(graph.result) && graph.order.length === reducers.length) {
    resultKind = reducers[nodes.get(graph.result)!.index]!.kind;
  } else {
    const program = kernelProgram(callback, { inputs: {}, constants: { context }, opaque: ['data'], nodes }, registry);
    if (!program) return undefined;
    kernel = compileKernel(program, registry, processContext);
    resultKind = program.resultKind;
  }
  const resultIndex = nodes.get(graph.result)?.index;
  const gathering = reducers.some((r) => r.gathered);
  interface State {
    cells: number;
    length: number;
    streams: ({ reducer: StreamingReducer; state: ReducerState } | undefined)[];
    values?: Float64Array;
  }
  return {
    resultKind,
    init: (cells, labels): State => ({
      cells,
      length: labels.length,
      streams: reducers.map((r) => {
        if (!r.streaming) return undefined;
        const reducer = r.streaming(labels);
        return { reducer, state: reducer.init(cells) };
      }),
      ...(gathering ? { values: new Float64Array(cells * labels.length) } : {}),
    }),
    update: (raw, offset, values, position) => {
      const state = raw as State;
      for (const s of state.streams) s?.reducer.update(s.state, offset, values, position);
      if (state.values) {
        const n = state.length;
        for (let i = 0; i < values.length; i++) state.values[(offset + i) * n + position] = values[i]!;
      }
    },
    finish: async (raw, out) => {
      const state = raw as State;
      const results = reducers.map((r, i) => {
        const result = new Float64Array(state.cells);
        const stream = state.streams[i];
        if (stream) stream.reducer.finish(stream.state, result, 0);
        else {
          const n = state.length;
          for (let c = 0; c < state.cells; c++) result[c] = r.gathered!(state.values!.subarray(c * n, (c + 1) * n));
        }
        return result;
      });
      if (kernel) kernel(results, out, state.cells);
      else out.set(results[resultIndex!]!);
    },
  };
}

function interpretedPlan(
  callback: Callback,
  inputKind: CellKind,
  context: unknown,
  registry: ProcessRegistry,
): ReducerPlan {
  const result = callback.graph.nodes.get(callback.graph.result)!;
  const resultKind =
    result.target.kind === 'predefined'
      ? returnKind(registry.get(result.target.id)?.description.returns.schema)
      : 'number';
  interface State {
    cells: number;
    labels: readonly Label[];
    values: Float64Array;
  }
  return {
    resultKind,
    init: (cells, labels): State => ({ cells, labels, values: new Float64Array(cells * labels.length) }),
    update: (raw, offset, values, position) => {
      const state = raw as State;
      const n = state.labels.length;
      for (let i = 0; i < values.length; i++) state.values[(offset + i) * n + position] = values[i]!;
    },
    finish: async (raw, out) => {
      const state = raw as State;
      const n = state.labels.length;
      for (let c = 0; c < state.cells; c++) {
        const values = Array.from(state.values.subarray(c * n, (c + 1) * n), (v) => fromCell(v, inputKind));
        out[c] = toCell(await callback.call({ data: new LabeledArray(state.labels, values), context }));
      }
    },
  };
}

/** The plan of one streaming reducer (`climatological_normal`'s mean). */
export function streamingPlan(make: (labels: readonly Label[]) => StreamingReducer): ReducerPlan {
  const probe = make([]);
  return {
    resultKind: probe.resultKind,
    init: (cells, labels) => {
      const reducer = make(labels);
      return { reducer, state: reducer.init(cells) };
    },
    update: (raw, offset, values, position) => {
      const { reducer, state } = raw as { reducer: StreamingReducer; state: ReducerState };
      reducer.update(state, offset, values, position);
    },
    finish: async (raw, out) => {
      const { reducer, state } = raw as { reducer: StreamingReducer; state: ReducerState };
      reducer.finish(state, out, 0);
    },
  };
}
