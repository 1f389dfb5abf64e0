/**
 * Logical processes (openEO category `logic`) with openEO's three-valued logic: nodata is unknown, so
 * `and(false, null)` is false and `or(true, null)` is true. In kernels booleans are 0/1 and NaN is nodata.
 */
import type { Args, CellKind, ProcessDefinition } from '../process.ts';

const logical = (kinds: Record<string, CellKind>): CellKind | undefined =>
  Object.values(kinds).every((k) => k === 'boolean' || k === 'nodata') ? 'boolean' : undefined;

export function and3(x: boolean | null, y: boolean | null): boolean | null {
  if (x === false || y === false) return false;
  return x === null || y === null ? null : true;
}

export function or3(x: boolean | null, y: boolean | null): boolean | null {
  if (x === true || y === true) return true;
  return x === null || y === null ? null : false;
}

export const logicProcesses: ProcessDefinition[] = [
  {
    id: 'and',
    run: ({ x, y }: Args) => and3(x as boolean | null, y as boolean | null),
    elementwise: {
      inputs: ['x', 'y'],
      expression: ({ x, y }) => `((${x} === 0 || ${y} === 0) ? 0 : (${x} !== ${x} || ${y} !== ${y}) ? NaN : 1)`,
      resultKind: logical,
    },
  },
  {
    id: 'or',
    run: ({ x, y }: Args) => or3(x as boolean | null, y as boolean | null),
    elementwise: {
      inputs: ['x', 'y'],
      expression: ({ x, y }) => `((${x} === 1 || ${y} === 1) ? 1 : (${x} !== ${x} || ${y} !== ${y}) ? NaN : 0)`,
      resultKind: logical,
    },
  },
  {
    id: 'xor',
    run: ({ x, y }: Args) => (x === null || y === null ? null : x !== y),
    elementwise: {
      inputs: ['x', 'y'],
      expression: ({ x, y }) => `((${x} !== ${x} || ${y} !== ${y}) ? NaN : (${x} !== ${y} ? 1 : 0))`,
      resultKind: logical,
    },
  },
  {
    id: 'not',
    run: ({ x }: Args) => (x === null ? null : !x),
    elementwise: { inputs: ['x'], expression: ({ x }) => `(1 - ${x})`, resultKind: logical },
  },
  {
    id: 'if',
    run: ({ value, accept, reject }: Args) => (value === true ? accept : reject),
    elementwise: {
      inputs: ['value', 'accept', 'reject'],
      expression: ({ value, accept, reject }) => `(${value} === 1 ? ${accept} : ${reject})`,
      resultKind: ({ value, accept, reject }) => {
        if (value !== 'boolean' && value !== 'nodata') return undefined;
        if (accept === 'nodata') return reject;
        if (reject === 'nodata' || reject === accept) return accept;
        return undefined;
      },
    },
  },
];
