/**
 * Helpers that define the common shapes of processes once: numeric functions of one or two numbers where nodata
 * (null) passes through, with the JavaScript expression their kernels use.
 */
import type { Args, CellKind, ElementwiseSpec, ProcessDefinition } from '../process.ts';

const numeric = (kinds: Record<string, CellKind>) =>
  Object.values(kinds).every((k) => k === 'number' || k === 'nodata') ? ('number' as const) : undefined;

/** A function of one number `x` (or another parameter name); null passes through. */
export function unaryMath(
  id: string,
  f: (x: number) => number,
  expression: (x: string) => string,
  parameter = 'x',
): ProcessDefinition {
  const elementwise: ElementwiseSpec = {
    inputs: [parameter],
    expression: (ops) => expression(ops[parameter]!),
    resultKind: numeric,
  };
  return {
    id,
    run: (args: Args) => {
      const x = args[parameter] as number | null;
      return x === null ? null : f(x);
    },
    elementwise,
  };
}

/** A function of two numbers; null in either passes through. */
export function binaryMath(
  id: string,
  f: (a: number, b: number) => number,
  expression: (a: string, b: string) => string,
  [first, second]: [string, string] = ['x', 'y'],
): ProcessDefinition {
  return {
    id,
    run: (args: Args) => {
      const a = args[first] as number | null;
      const b = args[second] as number | null;
      return a === null || b === null ? null : f(a, b);
    },
    elementwise: {
      inputs: [first, second],
      expression: (ops) => expression(ops[first]!, ops[second]!),
      resultKind: numeric,
    },
  };
}

export { numeric as numericKind };
