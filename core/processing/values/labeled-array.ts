/** A dimension label: a band name, a timestamp string, a coordinate, an index. */
export type Label = string | number;

/**
 * An array whose elements also have labels: what a callback over a data cube dimension receives as `data`
 * (bands, timestamps), and what `array_*` processes keep labelled. Plain arrays stay plain `unknown[]`.
 */
export class LabeledArray {
  readonly labels: readonly Label[];
  readonly values: readonly unknown[];

  constructor(labels: readonly Label[], values: readonly unknown[]) {
    if (labels.length !== values.length) throw new Error('a labeled array has as many labels as values');
    this.labels = labels;
    this.values = values;
  }

  get length(): number {
    return this.values.length;
  }

  /** Index of `label`, compared as openEO compares labels (strictly: `1` is not `'1'`), or -1. */
  indexOf(label: Label): number {
    return this.labels.indexOf(label);
  }
}

export function isLabeledArray(value: unknown): value is LabeledArray {
  return value instanceof LabeledArray;
}

/** The elements of an array or a labeled array. */
export function elementsOf(value: readonly unknown[] | LabeledArray): readonly unknown[] {
  return value instanceof LabeledArray ? value.values : value;
}

/** True for plain arrays and labeled arrays: what the schema type `array` accepts. */
export function isArrayValue(value: unknown): value is readonly unknown[] | LabeledArray {
  return Array.isArray(value) || value instanceof LabeledArray;
}
