/**
 * Aligns one cube to another's grid: same dimensions in the same order and the same chunk shape, values found
 * by dimension name and label (positions without a matching label become nodata), dimensions the other cube
 * lacks broadcast. This is how `mask`, `merge_cubes` and `anomaly` bring a second cube beside the first.
 */
import { ProcessingError } from '../errors.ts';
import { parseInstant } from '../values/datetime.ts';
import type { Label } from '../values/labeled-array.ts';
import { DataCube } from './cube.ts';
import type { Dimension } from './dimension.ts';
import { IndexMapSource } from './sources/index-map.ts';

/** A key under which two labels of a dimension are equal: instants for temporal labels, else the label. */
export function labelKey(dimension: Dimension, label: Label): string | number {
  if (dimension.type === 'temporal' && typeof label === 'string') return parseInstant(label) ?? label;
  return typeof label === 'number' ? Math.round(label * 1e9) / 1e9 : label;
}

/** Index in `source` of every label of `target` (-1 where absent). */
export function labelIndices(target: Dimension, source: Dimension): Int32Array {
  const positions = new Map(source.labels.map((l, i) => [labelKey(source, l), i]));
  return Int32Array.from(target.labels, (l) => positions.get(labelKey(target, l)) ?? -1);
}

/**
 * `other` on the grid of `dimensions` (with `chunkShape`); `indices` overrides the label matching of a
 * dimension (name -> parent index per position).
 */
export function alignTo(
  other: DataCube,
  dimensions: readonly Dimension[],
  chunkShape: readonly number[],
  indices: Record<string, Int32Array> = {},
): DataCube {
  for (const d of other.dimensions) {
    if (!dimensions.some((t) => t.name === d.name))
      throw new ProcessingError(
        'DimensionMismatch',
        `The second data cube has dimension '${d.name}', which the first lacks.`,
      );
  }
  const axes = dimensions.map((target) => {
    const parent = other.dimensions.findIndex((d) => d.name === target.name);
    if (parent < 0) return { parent: null, indices: null };
    return { parent, indices: indices[target.name] ?? labelIndices(target, other.dimensions[parent]!) };
  });
  return new DataCube(new IndexMapSource(other, { ...other.metadata, dimensions, chunkShape }, axes));
}
