import { join } from 'node:path';
import { NETCDF_FILE } from './layout.ts';
import { writeNetcdfCube } from './netcdf.ts';
import { cubeCoverage, RasterCubeWriter, type Coverage, type RasterCubeDescription } from './raster-cube.ts';

/** Where an ingestion puts periods, whatever the stored format: append in order, then finish. */
export interface CubeSink {
  append(values: Float32Array): Promise<void>;
  finish(): Promise<Coverage>;
}

export interface StoreFormat {
  format: string;
  zarrVersion: number;
}

/** Why a format cannot be written here, or undefined when it can. */
export function unsupportedFormat({ format, zarrVersion }: StoreFormat): string | undefined {
  if (format === 'zarr' && (zarrVersion === 2 || zarrVersion === 3)) return undefined;
  if (format === 'netcdf') return undefined;
  const name = format === 'zarr' ? `Zarr v${zarrVersion}` : format;
  return `this instance writes Zarr v2 and v3 stores and NetCDF-4 files; ${name} is not available yet`;
}

/**
 * Opens the sink of a version directory. Zarr streams each block of periods to disk as it fills; NetCDF-4 is
 * written as one file at the end (h5wasm writes synchronously), so its planes stay in memory until then.
 */
export async function openCubeSink(
  dir: string,
  format: StoreFormat,
  description: RasterCubeDescription,
): Promise<CubeSink> {
  const why = unsupportedFormat(format);
  if (why) throw new Error(why);
  if (format.format === 'zarr')
    return RasterCubeWriter.create(dir, { ...description, zarrVersion: format.zarrVersion === 3 ? 3 : 2 });
  const planes: Float32Array[] = [];
  return {
    append: async (values) => void planes.push(values),
    finish: async () => {
      await writeNetcdfCube(join(dir, NETCDF_FILE), description, planes);
      return cubeCoverage(description);
    },
  };
}
