/**
 * Reducers over arrays of numbers or booleans (openEO categories `math > statistics`, `logic`, `reducer`): the
 * scalar definitions, with `ignore_nodata` as each description says. Their streaming forms over data cube chunks
 * are in `../kernels/streaming.ts`, tested against these.
 */
import { ProcessingError, invalidArgument } from '../errors.ts';
import { GATHERED, STREAMING } from '../kernels/streaming.ts';
import { medianOf, quantilesOf, sumOf, varianceOf } from '../kernels/statistics.ts';
import type { Args, ProcessDefinition, ReducerSpec } from '../process.ts';
import { parseInstant } from '../values/datetime.ts';
import { elementsOf, type LabeledArray } from '../values/labeled-array.ts';

type ArrayValue = readonly unknown[] | LabeledArray;

/**
 * The numbers to reduce: nodata dropped when ignored, or `undefined` when nodata must make the result nodata.
 */
function numbersOf(data: unknown, ignoreNodata: unknown): number[] | undefined {
  const items = elementsOf(data as ArrayValue);
  const out: number[] = [];
  for (const x of items) {
    if (x === null) {
      if (ignoreNodata === false) return undefined;
    } else out.push(x as number);
  }
  return out;
}

/** The streaming and gathered forms of reducer `id`, if it has any (`kernels/streaming.ts`). */
function reducerSpec(id: string): ReducerSpec | undefined {
  const streaming = STREAMING[id];
  const gathered = GATHERED[id];
  if (!streaming && !gathered) return undefined;
  return { ...(streaming ? { streaming } : {}), ...(gathered ? { gathered } : {}) };
}

/** A definition with its streaming form attached. */
function withForms(definition: ProcessDefinition): ProcessDefinition {
  const reducer = reducerSpec(definition.id);
  return reducer ? { ...definition, reducer } : definition;
}

function numeric(id: string, reduce: (values: number[]) => number | null): ProcessDefinition {
  return {
    id,
    run: ({ data, ignore_nodata }: Args) => {
      const values = numbersOf(data, ignore_nodata);
      return values === undefined || values.length === 0 ? null : reduce(values);
    },
  };
}

/** The probabilities `quantiles` computes: given ones (ascending), or `k` equal intervals. */
export function probabilitiesOf(probabilities: unknown, q: unknown, maxLength: number): number[] {
  const given = probabilities !== undefined && probabilities !== null;
  if (given && q !== undefined && q !== null)
    throw new ProcessingError(
      'QuantilesParameterConflict',
      'The process `quantiles` only allows that either the `probabilities` or the `q` parameter is set.',
    );
  const count = typeof probabilities === 'number' ? probabilities : typeof q === 'number' ? q : undefined;
  if (count !== undefined) {
    if (count - 1 > maxLength) throw invalidArgument('quantiles', 'probabilities', `${count} intervals are too many`);
    return Array.from({ length: Math.max(0, count - 1) }, (_, i) => (i + 1) / count);
  }
  if (!Array.isArray(probabilities))
    throw new ProcessingError(
      'QuantilesParameterMissing',
      'The process `quantiles` requires either the `probabilities` or `q` parameter to be set.',
    );
  const list = probabilities as number[];
  if (list.some((p, i) => i > 0 && p < list[i - 1]!))
    throw new ProcessingError(
      'AscendingProbabilitiesRequired',
      'The values passed for parameter `probabilities` must be sorted in ascending order.',
    );
  return list;
}

function firstOrLast(id: 'first' | 'last'): ProcessDefinition {
  return {
    id,
    run: ({ data, ignore_nodata }: Args) => {
      const items = elementsOf(data as ArrayValue);
      const order = id === 'first' ? items : [...items].reverse();
      if (ignore_nodata === false) return order.length === 0 ? null : order[0];
      return order.find((x) => x !== null) ?? null;
    },
  };
}

function extremum(id: 'min' | 'max'): ProcessDefinition {
  const pick = id === 'min' ? Math.min : Math.max;
  return numeric(id, (values) => values.reduce((a, b) => pick(a, b)));
}

const definitions: ProcessDefinition[] = [
  numeric('sum', sumOf),
  numeric('product', (values) => values.reduce((a, b) => a * b, 1)),
  numeric('mean', (values) => sumOf(values) / values.length),
  numeric('median', medianOf),
  numeric('variance', varianceOf),
  numeric('sd', (values) => Math.sqrt(varianceOf(values))),
  extremum('min'),
  extremum('max'),
  firstOrLast('first'),
  firstOrLast('last'),
  {
    id: 'extrema',
    run: ({ data, ignore_nodata }: Args) => {
      const values = numbersOf(data, ignore_nodata);
      if (values === undefined || values.length === 0) return [null, null];
      return [values.reduce((a, b) => Math.min(a, b)), values.reduce((a, b) => Math.max(a, b))];
    },
  },
  {
    id: 'quantiles',
    run: ({ data, probabilities, q, ignore_nodata }: Args, context) => {
      const ps = probabilitiesOf(probabilities, q, context.limits.maxArrayLength);
      const values = numbersOf(data, ignore_nodata);
      if (values === undefined || values.length === 0) return ps.map(() => null);
      return quantilesOf(values, ps);
    },
  },
  {
    id: 'all',
    run: ({ data, ignore_nodata }: Args) => {
      const items = elementsOf(data as ArrayValue);
      if (items.includes(false)) return false;
      return ignore_nodata === false && items.includes(null) && items.includes(true) ? null : true;
    },
  },
  {
    id: 'any',
    run: ({ data, ignore_nodata }: Args) => {
      const items = elementsOf(data as ArrayValue);
      if (items.includes(true)) return true;
      return ignore_nodata === false && items.includes(null) && items.includes(false) ? null : false;
    },
  },
  {
    id: 'sort',
    run: ({ data, asc, nodata }: Args) => {
      const items = elementsOf(data as ArrayValue);
      const present = items.filter((x) => x !== null) as (number | string)[];
      const key = (x: number | string) => (typeof x === 'number' ? x : (parseInstant(x) ?? NaN));
      present.sort((a, b) => (asc === false ? key(b) - key(a) : key(a) - key(b)));
      const missing = items.filter((x) => x === null);
      if (nodata === true) return [...present, ...missing];
      if (nodata === false) return [...missing, ...present];
      return present;
    },
  },
];

export const reducerProcesses: ProcessDefinition[] = definitions.map(withForms);
