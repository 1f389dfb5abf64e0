import type { Label } from '../values/labeled-array.ts';

export type DimensionType = 'spatial' | 'temporal' | 'bands' | 'other' | 'geometry';

/**
 * A dimension of a data cube, as the STAC datacube extension describes one: a name, a type, labels (band names,
 * timestamps, pixel-centre coordinates, geometry ids), and for spatial dimensions the axis, the reference system
 * and the step between labels (negative for a north-up `y`).
 */
export interface Dimension {
  name: string;
  type: DimensionType;
  axis?: 'x' | 'y' | 'z';
  labels: readonly Label[];
  /** Reference system of a spatial or geometry dimension: `EPSG:4326`, an EPSG code, or WKT2. */
  crs?: string | number;
  /** Distance between consecutive pixel centres of a regular spatial dimension, signed. */
  step?: number;
}

export function dimensionIndex(dimensions: readonly Dimension[], name: string): number {
  return dimensions.findIndex((d) => d.name === name);
}

/** The horizontal spatial dimension of an axis (`x` or `y`), found by axis, else by name. */
export function spatialIndex(dimensions: readonly Dimension[], axis: 'x' | 'y'): number {
  const byAxis = dimensions.findIndex((d) => d.type === 'spatial' && d.axis === axis);
  if (byAxis >= 0) return byAxis;
  return dimensions.findIndex((d) => d.type === 'spatial' && d.axis === undefined && d.name === axis);
}

/** The step of a spatial dimension: declared, else the distance of its first two labels. */
export function stepOf(dimension: Dimension): number | undefined {
  if (dimension.step !== undefined) return dimension.step;
  const [a, b] = dimension.labels;
  return typeof a === 'number' && typeof b === 'number' ? b - a : undefined;
}

/** Labels compared as openEO compares them: strictly, so `1` and `'1'` differ. */
export function sameLabels(a: readonly Label[], b: readonly Label[]): boolean {
  return a.length === b.length && a.every((label, i) => label === b[i]);
}

/** A copy with some properties replaced. */
export function withDimension(dimension: Dimension, changes: Partial<Dimension>): Dimension {
  return { ...dimension, ...changes };
}
