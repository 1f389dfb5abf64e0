/**
 * A raster cube as a NetCDF-4 file (CF-1.8), written with h5wasm as the stores' NetCDF writer does: `time` (when
 * the cube has a temporal dimension), `lat` and `lon` coordinates, one float variable per label of the `bands`
 * dimension over them, NaN as `_FillValue`, and the `spatial_ref` grid mapping GDAL and xarray read. Grids in
 * EPSG:4326 only, the reference system of every store; every other dimension must hold one label.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import h5wasm from 'h5wasm/node';
import { gridMappingAttributes, LATITUDE_ATTRIBUTES, LONGITUDE_ATTRIBUTES } from '../../stores/cf.ts';
import { DEFLATE_LEVEL, writeAttributes } from '../../stores/netcdf/write.ts';
import type { DataCube } from '../cube/cube.ts';
import { stepOf } from '../cube/dimension.ts';
import { stridesOf } from '../cube/grid.ts';
import { materialize } from '../cube/read.ts';
import { spatialAxes } from '../processes/cube/helpers.ts';
import { crsKey } from '../values/crs.ts';
import { labelInstants } from '../processes/cube/filters.ts';
import { unsuitable as unsuitableFor } from './image.ts';

const unsuitable = (why: string) => unsuitableFor('netCDF', why);

/** A netCDF variable name for a band label: letters, digits and `_`, not starting with a digit. */
const variableName = (label: string) => {
  const name = label.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`;
};

export async function cubeNetcdf(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<Uint8Array> {
  const { dimensions } = cube;
  const { x, y } = spatialAxes(cube);
  if (crsKey(dimensions[x]!.crs ?? dimensions[y]!.crs) !== 'EPSG:4326') throw unsuitable('its grid is not EPSG:4326');
  const time = dimensions.findIndex((d) => d.type === 'temporal');
  const band = dimensions.findIndex((d) => d.type === 'bands');
  const extra = dimensions.find((d, i) => ![x, y, time, band].includes(i) && d.labels.length !== 1);
  if (extra)
    throw unsuitable(`dimension '${extra.name}' has ${extra.labels.length} labels; filter or reduce it to one`);
  const [dx, dy] = [stepOf(dimensions[x]!), stepOf(dimensions[y]!)];
  if (dx === undefined || dy === undefined) throw unsuitable('its grid has a single row or column and no step');
  const instants = time >= 0 ? labelInstants(dimensions[time]!.labels as string[]) : [];
  if (instants.some(Number.isNaN)) throw unsuitable('a temporal label is not a date');

  const values = await materialize(cube, maxCells, signal);
  const strides = stridesOf(cube.shape);
  const lat = Float64Array.from(dimensions[y]!.labels as number[]);
  const lon = Float64Array.from(dimensions[x]!.labels as number[]);
  const nt = Math.max(instants.length, 1);
  const bands = band >= 0 ? dimensions[band]!.labels.map(String) : ['value'];

  await h5wasm.ready;
  const dir = await mkdtemp(join(tmpdir(), 'stratus-result-'));
  try {
    const path = join(dir, 'result.nc');
    // Creation order tracked, so that netCDF-C lists dimensions and variables in the order written.
    const file = new h5wasm.File(path, 'w', { track_order: true });
    try {
      writeAttributes(file, { Conventions: 'CF-1.8', source: 'Stratus openEO POST /result' });
      const coordinate = (name: string, data: BigInt64Array | Float64Array, attributes: Record<string, unknown>) => {
        const dataset = file.create_dataset({ name, data, track_order: true });
        dataset.make_scale(name);
        writeAttributes(dataset, attributes);
      };
      const axes = time >= 0 ? ['time', 'lat', 'lon'] : ['lat', 'lon'];
      if (time >= 0)
        coordinate(
          'time',
          BigInt64Array.from(instants, (t) => BigInt(Math.round(t / 1000))),
          {
            standard_name: 'time',
            axis: 'T',
            units: 'seconds since 1970-01-01T00:00:00',
            calendar: 'proleptic_gregorian',
          },
        );
      coordinate('lat', lat, LATITUDE_ATTRIBUTES);
      coordinate('lon', lon, LONGITUDE_ATTRIBUTES);
      const crs = file.create_dataset({
        name: 'spatial_ref',
        data: new BigInt64Array(1),
        shape: [],
        track_order: true,
      });
      const west = lon[0]! - dx / 2;
      const top = lat[0]! - dy / 2;
      writeAttributes(crs, gridMappingAttributes([west, dx, 0, top, 0, dy]));

      const [ny, nx] = [lat.length, lon.length];
      bands.forEach((label, b) => {
        const data = new Float32Array(nt * ny * nx);
        const base = band >= 0 ? b * strides[band]! : 0;
        for (let t = 0; t < nt; t++)
          for (let row = 0; row < ny; row++)
            for (let col = 0; col < nx; col++)
              data[(t * ny + row) * nx + col] =
                values[base + (time >= 0 ? t * strides[time]! : 0) + row * strides[y]! + col * strides[x]!]!;
        const shape = time >= 0 ? [nt, ny, nx] : [ny, nx];
        const variable = file.create_dataset({
          name: variableName(label),
          data,
          shape,
          dtype: '<f',
          chunks: shape,
          compression: 'gzip',
          compression_opts: DEFLATE_LEVEL,
          track_order: true,
        });
        axes.forEach((name, axis) => variable.attach_scale(axis, `/${name}`));
        writeAttributes(variable, { long_name: label, grid_mapping: 'spatial_ref', coordinates: 'spatial_ref' });
        variable.create_attribute('_FillValue', Number.NaN, null, '<f');
      });
    } finally {
      file.close();
    }
    return new Uint8Array(await readFile(path));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
