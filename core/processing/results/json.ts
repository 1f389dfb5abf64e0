/**
 * A run's value as JSON, the one output format of a synchronous run: scalars, arrays and objects as they are (NaN
 * and nodata as null), and a data cube, raster or vector, as its dimensions with their labels and its values as
 * arrays nested in the order of the dimensions.
 */
import { isCube, type DataCube } from '../cube/cube.ts';
import { materialize } from '../cube/read.ts';
import type { Label } from '../values/labeled-array.ts';

export interface CubeJson {
  type: 'DataCube';
  dimensions: { name: string; type: string; labels: readonly Label[]; crs?: string | number }[];
  /** Values nested by dimension, first dimension outermost; nodata is null. */
  data: unknown;
  /** The features a vector cube's geometry labels stand for. */
  geometries?: unknown[];
}

function nest(values: ArrayLike<number>, shape: readonly number[], boolean: boolean): unknown {
  const cell = (v: number) => (Number.isNaN(v) ? null : boolean ? v === 1 : v);
  const build = (axis: number, offset: number): unknown => {
    if (axis === shape.length) return cell(values[offset]!);
    const stride = shape.slice(axis + 1).reduce((n, s) => n * s, 1);
    return Array.from({ length: shape[axis]! }, (_, i) => build(axis + 1, offset + i * stride));
  };
  return build(0, 0);
}

export async function cubeJson(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<CubeJson> {
  const values = await materialize(cube, maxCells, signal);
  const { dimensions, cellType, geometries } = cube.metadata;
  return {
    type: 'DataCube',
    dimensions: dimensions.map(({ name, type, labels, crs }) => ({
      name,
      type,
      labels,
      ...(crs !== undefined && { crs }),
    })),
    data: nest(values, cube.shape, cellType === 'boolean'),
    ...(geometries && { geometries: [...geometries] }),
  };
}

/** The JSON text of any value a run returns. */
export async function resultJson(value: unknown, maxCells: number, signal?: AbortSignal): Promise<string> {
  const json = isCube(value) ? await cubeJson(value, maxCells, signal) : value;
  // JSON has no NaN: it becomes null, as nodata does.
  return JSON.stringify(json ?? null);
}
