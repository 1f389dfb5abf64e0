import h5wasm, { type Dataset, type Group } from 'h5wasm/node';
import { replaceFile } from '../../files/durable.ts';
import { chunkShape, geoTransform, type RasterCubeDescription } from '../raster-cube.ts';
import { coordinateAttributes, dataAttributes, gridMappingAttributes, timeValues } from '../cf.ts';
import { withReproducibleTimes } from './reproducible.ts';

/** Deflate level of the data variable: most of the size gain of higher levels at a fraction of their time. */
export const DEFLATE_LEVEL = 4;

/**
 * Strings become scalar fixed-length C strings, which netCDF-C reads as text (NC_CHAR), the type of CF text
 * attributes; h5wasm's default variable-length strings would come back as NC_STRING (`string` in ncdump).
 * Numbers become an int or a double.
 */
export function writeAttributes(target: Group | Dataset, attributes: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'string') {
      // HDF5 has no zero-length string type; a single NUL reads back as the empty text.
      target.create_attribute(name, value, null, `A${Math.max(1, Buffer.byteLength(value))}`);
    } else if (typeof value === 'number') {
      target.create_attribute(name, value, null, Number.isInteger(value) && Math.abs(value) < 2 ** 31 ? '<i' : '<d');
    } else {
      throw new TypeError(`NetCDF attribute ${name}: only strings and numbers are supported`);
    }
  }
}

function writeCube(file: Group, description: RasterCubeDescription, planes: Float32Array[]): void {
  const { grid, periods, periodType } = description;
  const [nt, ny, nx] = [periods.length, grid.lat.length, grid.lon.length];
  writeAttributes(file, { Conventions: 'CF-1.8', ...description.attributes });

  // netCDF-C numbers dimensions in creation order, so the coordinates come first, in the data's dimension order.
  const coordinate = (name: string, data: BigInt64Array | Float64Array, attributes: Record<string, unknown>) => {
    const dataset = file.create_dataset({ name, data, track_order: true });
    // A dimension scale named after its dataset is what netCDF-C reads as a dimension with a coordinate variable.
    dataset.make_scale(name);
    writeAttributes(dataset, attributes);
  };
  const attributes = coordinateAttributes(periodType);
  coordinate('time', timeValues(periods, periodType), attributes.time);
  coordinate('lat', grid.lat, attributes.lat);
  coordinate('lon', grid.lon, attributes.lon);

  const crs = file.create_dataset({ name: 'spatial_ref', data: new BigInt64Array(1), shape: [], track_order: true });
  writeAttributes(crs, gridMappingAttributes(geoTransform(grid)));

  // Whole time blocks of chunks are written at once: each compressed chunk is written exactly once, and only one
  // block at a time is copied into the WebAssembly heap.
  const chunks = chunkShape(nt, ny, nx);
  const plane = ny * nx;
  const block = (t0: number) => {
    const values = new Float32Array(Math.min(chunks[0], nt - t0) * plane);
    for (let k = 0; k * plane < values.length; k++) values.set(planes[t0 + k]!, k * plane);
    return values;
  };
  const first = block(0);
  // The maximum shape is the final one, not unlimited, so that readers see a fixed-size time dimension.
  const data = file.create_dataset({
    name: description.variable,
    data: first,
    shape: [first.length / plane, ny, nx],
    dtype: '<f',
    maxshape: [nt, ny, nx],
    chunks,
    compression: 'gzip',
    compression_opts: DEFLATE_LEVEL,
    track_order: true,
  });
  data.resize([nt, ny, nx]);
  for (let t0 = chunks[0]; t0 < nt; t0 += chunks[0]) {
    const values = block(t0);
    data.write_slice([[t0, t0 + values.length / plane], [], []], values);
  }
  ['time', 'lat', 'lon'].forEach((name, axis) => data.attach_scale(axis, `/${name}`));
  writeAttributes(data, dataAttributes(description));
  data.create_attribute('_FillValue', Number.NaN, null, '<f');
}

/** Writes the whole cube to `path` (a new file) as NetCDF-4 readable by ncdump, xarray (netCDF4 engine) and GDAL. */
export async function writeNetcdfCube(
  path: string,
  description: RasterCubeDescription,
  planes: Float32Array[],
): Promise<void> {
  const { grid, periods } = description;
  if (periods.length === 0) throw new Error('a raster cube needs at least one period');
  if (planes.length !== periods.length)
    throw new Error(`${periods.length} periods declared but ${planes.length} planes given`);
  const plane = grid.lat.length * grid.lon.length;
  const wrong = planes.findIndex((values) => values.length !== plane);
  if (wrong >= 0) throw new Error(`plane ${wrong}: expected ${plane} values, got ${planes[wrong]!.length}`);

  await h5wasm.ready;
  // h5wasm closes without fsync: replaceFile flushes the file before the rename publishes it.
  await replaceFile(path, (temporary) =>
    withReproducibleTimes(() => {
      // Track creation order so that netCDF-C lists dimensions, variables and attributes in the order written.
      const file = new h5wasm.File(temporary, 'w', { track_order: true });
      try {
        writeCube(file, description, planes);
      } finally {
        file.close();
      }
    }),
  );
}
