/**
 * Compiles a callback whose every node is an element-wise process into a kernel program: plain data (process
 * ids, operand references, constants) that any thread can turn into one fused loop over typed arrays
 * (`compile.ts`). A callback with any other node (a reducer, a text process, a user-defined process, a nested
 * callback) has no program; the caller interprets it per element instead, with the same results.
 */
import type { Callback } from '../evaluate/callback.ts';
import type { Argument } from '../graph/types.ts';
import type { Args, CellKind, ProcessRegistry } from '../process.ts';
import { kindOf } from './cells.ts';

export type Operand =
  { kind: 'input'; index: number } | { kind: 'constant'; value: number } | { kind: 'node'; index: number };

export interface KernelStep {
  process: string;
  /** Per-element operands by parameter name. */
  operands: Record<string, Operand>;
  /** The other arguments, constants (defaults filled in). */
  constants: Args;
  kind: CellKind;
}

export interface KernelProgram {
  /** Kinds of the per-element inputs, by index. */
  inputs: CellKind[];
  steps: KernelStep[];
  result: Operand;
  resultKind: CellKind;
}

/** Per-element parameters of the callback, each an input of the kernel with the kind of its values. */
export type ElementParameters = Record<string, { index: number; kind: CellKind }>;

export function operandKind(operand: Operand, inputs: readonly CellKind[], steps: readonly KernelStep[]): CellKind {
  if (operand.kind === 'input') return inputs[operand.index]!;
  if (operand.kind === 'node') return steps[operand.index]!.kind;
  return Number.isNaN(operand.value) ? 'nodata' : 'number';
}

export interface KernelBindings {
  /** Callback parameters with one value per element: the kernel's inputs. */
  inputs: ElementParameters;
  /** Callback parameters with one value for all elements (`context`). */
  constants?: Record<string, unknown>;
  /** Callback parameters a kernel cannot read (the whole array `data` of a reducer). */
  opaque?: readonly string[];
  /** Nodes computed elsewhere (reducers of a reducer callback), read as inputs. */
  nodes?: ReadonlyMap<string, { index: number; kind: CellKind }>;
}

/**
 * The kernel program of `callback`, or undefined when some node has no element-wise form. Parameters of
 * enclosing scopes are read once, as constants.
 */
export function kernelProgram(
  callback: Callback,
  bindings: KernelBindings,
  registry: ProcessRegistry,
): KernelProgram | undefined {
  const { graph } = callback;
  const parameters = bindings.inputs;
  const inputKinds: CellKind[] = [];
  for (const { index, kind } of Object.values(parameters)) inputKinds[index] = kind;
  for (const { index, kind } of bindings.nodes?.values() ?? []) inputKinds[index] = kind;
  const steps: KernelStep[] = [];
  const positions = new Map<string, number>();
  const constantOf = (argument: Argument): { value: unknown } | undefined => {
    if (argument.kind === 'literal') return { value: argument.value };
    if (argument.kind !== 'parameter' || argument.name in parameters) return undefined;
    if (bindings.opaque?.includes(argument.name)) return undefined;
    if (bindings.constants && argument.name in bindings.constants) return { value: bindings.constants[argument.name] };
    return { value: callback.outer(argument.name) };
  };
  const nodeOperand = (ref: string): Operand | undefined => {
    const bound = bindings.nodes?.get(ref);
    if (bound) return { kind: 'input', index: bound.index };
    const position = positions.get(ref);
    return position === undefined ? undefined : { kind: 'node', index: position };
  };
  for (const id of graph.order) {
    if (bindings.nodes?.has(id)) continue;
    const node = graph.nodes.get(id)!;
    if (node.target.kind !== 'predefined') return undefined;
    const spec = registry.get(node.target.id)?.elementwise;
    if (!spec) return undefined;
    const operands: Record<string, Operand> = {};
    const constants: Args = {};
    for (const parameter of node.description.parameters) {
      const argument = node.arguments[parameter.name];
      const isInput = spec.inputs.includes(parameter.name);
      if (argument === undefined) {
        if (!('default' in parameter)) continue;
        if (isInput) {
          const kind = kindOf(parameter.default);
          if (kind !== 'nodata' && kind !== 'number' && kind !== 'boolean') return undefined;
          operands[parameter.name] = { kind: 'constant', value: toNumber(parameter.default) };
        } else constants[parameter.name] = parameter.default;
        continue;
      }
      if (isInput) {
        if (argument.kind === 'node') {
          const operand = nodeOperand(argument.node);
          if (!operand) return undefined;
          operands[parameter.name] = operand;
        } else if (argument.kind === 'parameter' && argument.name in parameters)
          operands[parameter.name] = { kind: 'input', index: parameters[argument.name]!.index };
        else {
          const constant = constantOf(argument);
          if (!constant || kindOf(constant.value) === undefined) return undefined;
          operands[parameter.name] = { kind: 'constant', value: toNumber(constant.value) };
        }
      } else {
        const constant = constantOf(argument);
        if (!constant) return undefined;
        constants[parameter.name] = constant.value;
      }
    }
    const kinds: Record<string, CellKind> = {};
    for (const [name, operand] of Object.entries(operands)) kinds[name] = operandKind(operand, inputKinds, steps);
    const kind = spec.resultKind(kinds, constants);
    if (kind === undefined) return undefined;
    positions.set(id, steps.length);
    steps.push({ process: node.target.id, operands, constants, kind });
  }
  const result = nodeOperand(graph.result)!;
  return { inputs: inputKinds, steps, result, resultKind: operandKind(result, inputKinds, steps) };
}

function toNumber(value: unknown): number {
  if (value === null) return NaN;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as number;
}
