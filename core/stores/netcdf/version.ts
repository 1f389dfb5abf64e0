import { join } from 'node:path';
import { NETCDF_FILE } from '../layout.ts';
import { cubeCoverage, type RasterCubeDescription } from '../raster-cube.ts';
import type { CubeSink } from '../store.ts';
import { readNetcdfPlanes } from './read.ts';
import { writeNetcdfCube } from './write.ts';

/**
 * NetCDF-4 versions: one file in the version directory, written at the end (h5wasm writes synchronously), so its
 * planes stay in memory until then. An append rewrites the file whole, the previous version's planes first.
 */

export function netcdfCubeSink(dir: string, description: RasterCubeDescription): CubeSink {
  const planes: Float32Array[] = [];
  return {
    append: async (values: Float32Array) => void planes.push(values),
    finish: async () => {
      await writeNetcdfCube(join(dir, NETCDF_FILE), description, planes);
      return cubeCoverage(description);
    },
  };
}

/** A sink that already holds the periods of the version in `previous` (the first of `description.periods`). */
export async function netcdfAppendSink(
  dir: string,
  previous: string,
  description: RasterCubeDescription,
): Promise<CubeSink> {
  const sink = netcdfCubeSink(dir, description);
  for (const plane of await readNetcdfPlanes(previous, description.variable)) await sink.append(plane);
  return sink;
}
