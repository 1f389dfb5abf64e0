/** Array processes (openEO category `arrays`): creating, reading and searching plain and labeled arrays. */
import { ProcessingError, invalidArgument } from '../errors.ts';
import type { Callback } from '../evaluate/callback.ts';
import { STREAMING } from '../kernels/streaming.ts';
import { BYTES_PER_ARRAY_ELEMENT } from '../memory-budget.ts';
import type { Args, ProcessContext, ProcessDefinition } from '../process.ts';
import { LabeledArray, elementsOf, type Label } from '../values/labeled-array.ts';
import { equals } from './comparison.ts';

type ArrayValue = readonly unknown[] | LabeledArray;

/** The element `array_element` selects: by index, or by label in a labeled array; -1 when absent. */
export function elementPosition(data: ArrayValue, index: unknown, label: unknown): number {
  if (index !== undefined && index !== null && label !== undefined && label !== null)
    throw new ProcessingError(
      'ArrayElementParameterConflict',
      'The process `array_element` only allows that either the `index` or the `labels` parameter is set.',
    );
  if (typeof index === 'number') return index < elementsOf(data).length ? index : -1;
  if (label !== undefined && label !== null) {
    if (!(data instanceof LabeledArray))
      throw new ProcessingError(
        'ArrayNotLabeled',
        'The array is not a labeled array, but the `label` parameter is set.',
      );
    return data.indexOf(label as Label);
  }
  throw new ProcessingError(
    'ArrayElementParameterMissing',
    'The process `array_element` requires either the `index` or `labels` parameter to be set.',
  );
}

export function notAvailable(): ProcessingError {
  return new ProcessingError('ArrayElementNotAvailable', 'The array has no element with the specified index or label.');
}

/** Refuses an array of `length` elements past the engine's array limit or the run's memory, before making it. */
function checkLength(length: number, context: ProcessContext, process: string): void {
  const maximum = context.limits.maxArrayLength;
  if (!(length <= maximum))
    throw invalidArgument(
      process,
      'data',
      `the array would have ${length} elements, more than the limit of ${maximum}`,
    );
  context.memory?.check(length * BYTES_PER_ARRAY_ELEMENT, `The array of ${length} elements of ${process}`);
}

export const arrayProcesses: ProcessDefinition[] = [
  {
    id: 'array_element',
    reducer: { streaming: STREAMING.array_element! },
    run: ({ data, index, label, return_nodata }: Args) => {
      const position = elementPosition(data as ArrayValue, index, label);
      if (position < 0) {
        if (return_nodata) return null;
        throw notAvailable();
      }
      return elementsOf(data as ArrayValue)[position];
    },
  },
  {
    id: 'array_create',
    run: ({ data, repeat }: Args, context) => {
      const items = elementsOf(data as ArrayValue);
      // Nothing repeated is nothing, however often: no loop over a huge `repeat`.
      if (items.length === 0) return [];
      checkLength(items.length * (repeat as number), context, 'array_create');
      const out: unknown[] = [];
      for (let r = 0; r < (repeat as number); r++) out.push(...items);
      return out;
    },
  },
  {
    id: 'array_concat',
    run: ({ array1, array2 }: Args, context) => {
      const a = array1 as ArrayValue;
      const b = array2 as ArrayValue;
      checkLength(a.length + b.length, context, 'array_concat');
      if (a instanceof LabeledArray && b instanceof LabeledArray) {
        const clash = b.labels.find((l) => a.labels.includes(l));
        if (clash !== undefined)
          throw new ProcessingError('ArrayLabelConflict', `The label '${clash}' is present in both arrays.`);
        return new LabeledArray([...a.labels, ...b.labels], [...a.values, ...b.values]);
      }
      return [...elementsOf(a), ...elementsOf(b)];
    },
  },
  {
    id: 'array_find',
    run: ({ data, value, reverse }: Args) => {
      if (value === null || typeof value === 'object') return null;
      const items = elementsOf(data as ArrayValue);
      const matches = (item: unknown) => item !== null && equals(item, value, null, true);
      if (reverse) {
        for (let i = items.length - 1; i >= 0; i--) if (matches(items[i])) return i;
      } else {
        for (let i = 0; i < items.length; i++) if (matches(items[i])) return i;
      }
      return null;
    },
  },
  {
    id: 'count',
    reducer: { streaming: STREAMING.count! },
    run: async ({ data, condition, context }: Args) => {
      const items = elementsOf(data as ArrayValue);
      if (condition === true) return items.length;
      if (condition === null || condition === undefined)
        return items.filter((x) => x !== null && (typeof x !== 'number' || Number.isFinite(x))).length;
      if (condition === false) throw invalidArgument('count', 'condition', '`false` is not a valid condition');
      let n = 0;
      for (const x of items) if ((await (condition as Callback).call({ x, context })) === true) n++;
      return n;
    },
  },
];
