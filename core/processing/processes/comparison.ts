/**
 * Comparisons (openEO category `comparison`). Types are compared strictly: a number is never equal to a string or
 * a boolean, strings (temporal ones too) are not ordered, and nodata in either operand gives nodata. In kernels a
 * NaN operand is nodata, so every comparison with it is nodata there.
 */
import type { Args, CellKind, ProcessDefinition } from '../process.ts';
import { literal } from '../kernels/scalar.ts';

/** `eq` of two non-null values, as the description defines it. */
export function equals(x: unknown, y: unknown, delta: number | null, caseSensitive: boolean): boolean {
  if (typeof x === 'number' && typeof y === 'number') {
    return delta === null ? x === y : Math.abs(x - y) <= delta;
  }
  if (typeof x === 'string' && typeof y === 'string') {
    return caseSensitive ? x === y : x.toLowerCase() === y.toLowerCase();
  }
  return typeof x === typeof y && x === y;
}

const comparable = (kinds: Record<string, CellKind>): CellKind | undefined =>
  Object.values(kinds).every((k) => k !== undefined) ? 'boolean' : undefined;

const orderingKind = (kinds: Record<string, CellKind>): CellKind | undefined =>
  Object.values(kinds).every((k) => k === 'number' || k === 'nodata') ? 'boolean' : undefined;

/** In kernels: nodata if either operand is, else the comparison as 1/0. */
const guarded = (x: string, y: string, test: string) =>
  `((${x} !== ${x} || ${y} !== ${y}) ? NaN : ((${test}) ? 1 : 0))`;

function equality(id: 'eq' | 'neq'): ProcessDefinition {
  const negate = id === 'neq';
  return {
    id,
    run: ({ x, y, delta, case_sensitive }: Args) => {
      if (x === null || y === null) return null;
      const same = equals(x, y, delta as number | null, case_sensitive as boolean);
      return negate ? !same : same;
    },
    elementwise: {
      inputs: ['x', 'y'],
      expression: ({ x, y }, { delta }) => {
        const test = delta === null ? `${x} === ${y}` : `Math.abs(${x} - ${y}) <= ${literal(delta)}`;
        return guarded(x!, y!, negate ? `!(${test})` : test);
      },
      // Numbers and booleans never equal each other; the kernel keeps them apart only when both kinds agree.
      resultKind: (kinds) =>
        kinds.x === kinds.y || kinds.x === 'nodata' || kinds.y === 'nodata' ? comparable(kinds) : undefined,
    },
  };
}

function ordering(id: string, test: (a: number, b: number) => boolean, operator: string): ProcessDefinition {
  return {
    id,
    run: ({ x, y }: Args) => {
      if (x === null || y === null) return null;
      return typeof x === 'number' && typeof y === 'number' ? test(x, y) : false;
    },
    elementwise: {
      inputs: ['x', 'y'],
      expression: ({ x, y }) => guarded(x!, y!, `${x} ${operator} ${y}`),
      resultKind: orderingKind,
    },
  };
}

export const comparisonProcesses: ProcessDefinition[] = [
  equality('eq'),
  equality('neq'),
  ordering('gt', (a, b) => a > b, '>'),
  ordering('gte', (a, b) => a >= b, '>='),
  ordering('lt', (a, b) => a < b, '<'),
  ordering('lte', (a, b) => a <= b, '<='),
  {
    id: 'between',
    run: ({ x, min, max, exclude_max }: Args) => {
      if (x === null) return null;
      if (typeof x !== 'number') return false;
      return x >= (min as number) && (exclude_max ? x < (max as number) : x <= (max as number));
    },
    elementwise: {
      inputs: ['x'],
      expression: ({ x }, { min, max, exclude_max }) =>
        `(${x} !== ${x} ? NaN : (${x} >= ${literal(min)} && ${x} ${exclude_max ? '<' : '<='} ${literal(max)}) ? 1 : 0)`,
      resultKind: (kinds) => (kinds.x === 'number' || kinds.x === 'nodata' ? 'boolean' : undefined),
    },
  },
  {
    // NaN is a number that is not a number; nodata is not NaN. In kernels NaN is nodata, so `is_nan` is false there.
    id: 'is_nan',
    run: ({ x }: Args) => typeof x === 'number' && Number.isNaN(x),
    elementwise: { inputs: ['x'], expression: () => '0', resultKind: () => 'boolean' },
  },
  {
    id: 'is_nodata',
    run: ({ x }: Args) => x === null,
    elementwise: { inputs: ['x'], expression: ({ x }) => `(${x} !== ${x} ? 1 : 0)`, resultKind: () => 'boolean' },
  },
  {
    // Valid: not nodata, and finite when a number.
    id: 'is_valid',
    run: ({ x }: Args) => x !== null && (typeof x !== 'number' || Number.isFinite(x)),
    elementwise: {
      inputs: ['x'],
      expression: ({ x }) => `(Number.isFinite(${x}) ? 1 : 0)`,
      resultKind: () => 'boolean',
    },
  },
];
