/** Small data cubes and one-node graphs for the processing engine's tests. */
import type { DataCube } from '../../core/processing/cube/cube.ts';
import type { Dimension } from '../../core/processing/cube/dimension.ts';
import { memoryCube } from '../../core/processing/cube/memory.ts';
import { materialize } from '../../core/processing/cube/read.ts';
import { runProcessGraph, type RunOptions } from '../../core/processing/engine.ts';

export const spatial = (axis: 'x' | 'y', labels: number[], crs: string | number = 'EPSG:32632'): Dimension => ({
  name: axis,
  type: 'spatial',
  axis,
  labels,
  crs,
});

export const temporal = (labels: string[], name = 't'): Dimension => ({ name, type: 'temporal', labels });

/** A cube of `dimensions` whose value at each cell is `value(index in C order)`. */
export function cubeOf(
  dimensions: Dimension[],
  value: (i: number) => number,
  options: { chunkShape?: number[]; float32?: boolean; units?: Record<string, string> } = {},
): DataCube {
  const cells = dimensions.reduce((n, d) => n * d.labels.length, 1);
  const data = options.float32 ? new Float32Array(cells) : new Float64Array(cells);
  for (let i = 0; i < cells; i++) data[i] = value(i);
  return memoryCube({
    dimensions,
    data,
    ...(options.chunkShape ? { chunkShape: options.chunkShape } : {}),
    ...(options.units ? { units: options.units } : {}),
  });
}

export async function valuesOf(cube: DataCube): Promise<number[]> {
  return Array.from(await materialize(cube, 1e9));
}

/** Runs one process with literal arguments (cubes among them). */
export function run(process: string, args: Record<string, unknown>, options: RunOptions = {}): Promise<unknown> {
  return runProcessGraph({ node: { process_id: process, arguments: args, result: true } }, options);
}

/** A callback graph of one process reading the callback parameters named in `args` with `from_parameter`. */
export function callback(process: string, args: Record<string, unknown>): { process_graph: Record<string, unknown> } {
  return { process_graph: { c: { process_id: process, arguments: args, result: true } } };
}
