/**
 * Helpers that define the common shapes of processes once: numeric functions of one or two numbers where nodata
 * (null) passes through, with the JavaScript expression their kernels use. `literal` renders a constant into a
 * kernel expression.
 */
import type { Args, CellKind, ElementwiseSpec, ProcessDefinition } from '../process.ts';

/** A number, boolean or null as a kernel literal (NaN for null, 0/1 for booleans). */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NaN';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value !== 'number') throw new Error(`not a kernel literal: ${typeof value}`);
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '(-Infinity)';
  if (Object.is(value, -0)) return '(-0)';
  return value < 0 ? `(${value})` : String(value);
}

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
