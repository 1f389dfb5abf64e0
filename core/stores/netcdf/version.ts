import { join } from 'node:path';
import { NETCDF_FILE } from '../layout.ts';
import { cubeCoverage, type RasterCubeDescription } from '../raster-cube.ts';
import type { CubeSink, Splice } from '../store.ts';
import { readNetcdfPlanes } from './read.ts';
import { writeNetcdfCube } from './write.ts';

/**
 * NetCDF-4 versions: one file in the version directory, written at the end (h5wasm writes synchronously), so its
 * planes stay in memory until then. A splice (an append, or fetched periods inside or overlapping the previous version) rewrites the file whole:
 * the union of the previous version's planes and the fetched ones.
 */

export function netcdfCubeSink(dir: string, description: RasterCubeDescription): CubeSink {
  const planes: Float32Array[] = [];
  return {
    append: async (values: Float32Array) => void planes.push(values),
    // The file is written by `finish` alone, before it returns.
    settled: async () => undefined,
    finish: async () => {
      await writeNetcdfCube(join(dir, NETCDF_FILE), description, planes);
      return cubeCoverage(description);
    },
  };
}

/**
 * A sink that holds the periods of the version in `previous` where `splice` puts them (after the fetched ones'
 * place, or before it when absent: an append) and takes the fetched periods in order.
 */
export async function netcdfSpliceSink(
  dir: string,
  previous: string,
  description: RasterCubeDescription,
  splice?: Splice,
): Promise<CubeSink> {
  const stored = await readNetcdfPlanes(previous, description.variable);
  const total = description.periods.length;
  const { offset, from, to } = splice ?? { offset: 0, from: stored.length, to: total };
  const fetched: Float32Array[] = [];
  return {
    append: async (values: Float32Array) => void fetched.push(values),
    settled: async () => undefined,
    finish: async () => {
      if (fetched.length !== to - from) throw new Error(`${to - from} periods fetched but ${fetched.length} appended`);
      const planes = Array.from({ length: total }, (_, i) =>
        i >= from && i < to ? fetched[i - from] : stored[i - offset],
      );
      if (planes.some((plane) => !plane)) throw new Error('the fetched and the stored periods leave a gap');
      const sink = netcdfCubeSink(dir, description);
      for (const plane of planes) await sink.append(plane!);
      return sink.finish();
    },
  };
}
