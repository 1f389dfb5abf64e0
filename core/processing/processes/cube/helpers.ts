/** Building blocks of the data cube processes: dimension lookups with openEO's exceptions, and derived cubes. */
import { DataCube, type CubeMetadata } from '../../cube/cube.ts';
import type { Dimension } from '../../cube/dimension.ts';
import { IndexMapSource } from '../../cube/sources/index-map.ts';
import { RelabelSource } from '../../cube/sources/relabel.ts';
import { ProcessingError } from '../../errors.ts';

export function dimensionNotAvailable(name: string): ProcessingError {
  return new ProcessingError('DimensionNotAvailable', `A dimension with the name '${name}' does not exist.`);
}

/** Index of dimension `name`, or DimensionNotAvailable. */
export function axisOf(cube: DataCube, name: string): number {
  const axis = cube.dimensions.findIndex((d) => d.name === name);
  if (axis < 0) throw dimensionNotAvailable(name);
  return axis;
}

/**
 * The temporal dimension a process works on: the named one, else the only one (TooManyDimensions when there
 * are several, DimensionNotAvailable when there is none).
 */
export function temporalAxis(cube: DataCube, name: string | null | undefined): number {
  if (name !== null && name !== undefined) {
    const axis = axisOf(cube, name);
    if (cube.dimensions[axis]!.type !== 'temporal')
      throw new ProcessingError('DimensionNotAvailable', `Dimension '${name}' is not a temporal dimension.`);
    return axis;
  }
  const temporal = cube.dimensions.flatMap((d, i) => (d.type === 'temporal' ? [i] : []));
  if (temporal.length === 0)
    throw new ProcessingError('DimensionNotAvailable', 'The data cube has no temporal dimension.');
  if (temporal.length > 1)
    throw new ProcessingError(
      'TooManyDimensions',
      'The data cube contains multiple temporal dimensions. The parameter `dimension` must be specified.',
    );
  return temporal[0]!;
}

/** The same values with other dimension metadata (same shape). */
export function relabel(
  cube: DataCube,
  dimensions: readonly Dimension[],
  changes: Partial<CubeMetadata> = {},
): DataCube {
  return new DataCube(new RelabelSource(cube, { ...cube.metadata, ...changes, dimensions }));
}

/** The cube restricted to `indices` (in that order) of dimension `axis`. */
export function selectIndices(cube: DataCube, axis: number, indices: readonly number[]): DataCube {
  if (indices.length === cube.shape[axis] && indices.every((v, i) => v === i)) return cube;
  const parent = cube.dimensions[axis]!;
  const dimensions = cube.dimensions.map((d, i) =>
    i === axis ? { ...parent, labels: indices.map((k) => parent.labels[k]!) } : d,
  );
  const chunkShape = cube.metadata.chunkShape.map((c, i) =>
    i === axis ? Math.max(1, Math.min(c, indices.length)) : c,
  );
  return new DataCube(
    new IndexMapSource(
      cube,
      { ...cube.metadata, dimensions, chunkShape },
      cube.dimensions.map((_, i) => ({ parent: i, indices: i === axis ? Int32Array.from(indices) : null })),
    ),
  );
}

/** Ids from 0 to n - 1. */
export function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
