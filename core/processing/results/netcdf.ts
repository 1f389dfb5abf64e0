/**
 * A raster cube as a NetCDF-4 file (CF-1.8), written with h5wasm as the stores' NetCDF writer does, in the layout of
 * `cf-raster.ts`: `time` (when the cube has a temporal dimension), `lat` and `lon` coordinates, one float variable
 * per band over them, NaN as `_FillValue`, and the `spatial_ref` grid mapping GDAL and xarray read.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import h5wasm from 'h5wasm/node';
import { gridMappingAttributes, LATITUDE_ATTRIBUTES, LONGITUDE_ATTRIBUTES } from '../../stores/cf.ts';
import { withReproducibleTimes } from '../../stores/netcdf/reproducible.ts';
import { DEFLATE_LEVEL, writeAttributes } from '../../stores/netcdf/write.ts';
import type { DataCube } from '../cube/cube.ts';
import { cfRaster, TIME_ATTRIBUTES } from './cf-raster.ts';

export async function cubeNetcdf(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<Uint8Array> {
  const raster = await cfRaster(cube, 'netCDF', maxCells, signal);
  await h5wasm.ready;
  const dir = await mkdtemp(join(tmpdir(), 'stratus-result-'));
  try {
    const path = join(dir, 'result.nc');
    withReproducibleTimes(() => {
      // Creation order tracked, so that netCDF-C lists dimensions and variables in the order written.
      const file = new h5wasm.File(path, 'w', { track_order: true });
      try {
        writeAttributes(file, { Conventions: 'CF-1.8', source: 'Stratus openEO POST /result' });
        const coordinate = (name: string, data: BigInt64Array | Float64Array, attributes: Record<string, unknown>) => {
          const dataset = file.create_dataset({ name, data, track_order: true });
          dataset.make_scale(name);
          writeAttributes(dataset, attributes);
        };
        const axes = raster.time ? ['time', 'lat', 'lon'] : ['lat', 'lon'];
        if (raster.time) coordinate('time', raster.time, TIME_ATTRIBUTES);
        coordinate('lat', raster.lat, LATITUDE_ATTRIBUTES);
        coordinate('lon', raster.lon, LONGITUDE_ATTRIBUTES);
        const crs = file.create_dataset({
          name: 'spatial_ref',
          data: new BigInt64Array(1),
          shape: [],
          track_order: true,
        });
        writeAttributes(crs, gridMappingAttributes(raster.geoTransform));

        raster.variables.forEach((name, b) => {
          const variable = file.create_dataset({
            name,
            data: raster.values[b]!,
            shape: raster.shape,
            dtype: '<f',
            chunks: raster.shape,
            compression: 'gzip',
            compression_opts: DEFLATE_LEVEL,
            track_order: true,
          });
          axes.forEach((scale, axis) => variable.attach_scale(axis, `/${scale}`));
          writeAttributes(variable, {
            long_name: raster.bands[b] ?? name,
            grid_mapping: 'spatial_ref',
            coordinates: 'spatial_ref',
          });
          variable.create_attribute('_FillValue', Number.NaN, null, '<f');
        });
      } finally {
        file.close();
      }
    });
    return new Uint8Array(await readFile(path));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
