/**
 * A raster cube laid out as the CF files Stratus writes (netCDF-4 and Zarr results): `time` when the cube has a
 * temporal dimension, `lat` and `lon`, one float32 variable per label of the `bands` dimension over them, the
 * `spatial_ref` grid mapping. Grids in EPSG:4326 only, the reference system of every store; every other dimension
 * must hold one label.
 */
import type { DataCube } from '../cube/cube.ts';
import { stridesOf } from '../cube/grid.ts';
import { materialize } from '../cube/read.ts';
import { labelInstants } from '../processes/cube/filters.ts';
import { crsKey } from '../values/crs.ts';
import { imageGrid, unsuitable } from './image.ts';

/** CF attributes of the `time` coordinate, in seconds since the epoch. */
export const TIME_ATTRIBUTES = {
  standard_name: 'time',
  axis: 'T',
  units: 'seconds since 1970-01-01T00:00:00',
  calendar: 'proleptic_gregorian',
};

/** A variable name for a band label: letters, digits and `_`, not starting with a digit. */
export const variableName = (label: string) => {
  const name = label.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`;
};

export interface CfRaster {
  /** Seconds since the epoch of the temporal labels; undefined without a temporal dimension. */
  time: BigInt64Array | undefined;
  lat: Float64Array;
  lon: Float64Array;
  /** Band labels (`value` without a bands dimension), in order. */
  bands: string[];
  /** GDAL's affine transform of the grid (north-west corner of the first cell). */
  geoTransform: number[];
  /** The shape of each variable: `[time, lat, lon]`, or `[lat, lon]`. */
  shape: number[];
  /** The values of band `b` in C order over `shape`. */
  variable(b: number): Float32Array;
}

export async function cfRaster(
  cube: DataCube,
  format: string,
  maxCells: number,
  signal?: AbortSignal,
): Promise<CfRaster> {
  const { dimensions } = cube;
  const { x, y, dx, dy } = imageGrid(cube, format, ['bands', 'temporal']);
  if (crsKey(dimensions[x]!.crs ?? dimensions[y]!.crs) !== 'EPSG:4326')
    throw unsuitable(format, 'its grid is not EPSG:4326');
  const time = dimensions.findIndex((d) => d.type === 'temporal');
  const band = dimensions.findIndex((d) => d.type === 'bands');
  const instants = time >= 0 ? labelInstants(dimensions[time]!.labels as string[]) : [];
  if (instants.some(Number.isNaN)) throw unsuitable(format, 'a temporal label is not a date');

  const values = await materialize(cube, maxCells, signal);
  const strides = stridesOf(cube.shape);
  const lat = Float64Array.from(dimensions[y]!.labels as number[]);
  const lon = Float64Array.from(dimensions[x]!.labels as number[]);
  const nt = Math.max(instants.length, 1);
  const [ny, nx] = [lat.length, lon.length];
  return {
    time: time >= 0 ? BigInt64Array.from(instants, (t) => BigInt(Math.round(t / 1000))) : undefined,
    lat,
    lon,
    bands: band >= 0 ? dimensions[band]!.labels.map(String) : ['value'],
    geoTransform: [lon[0]! - dx / 2, dx, 0, lat[0]! - dy / 2, 0, dy],
    shape: time >= 0 ? [nt, ny, nx] : [ny, nx],
    variable(b) {
      const data = new Float32Array(nt * ny * nx);
      const base = band >= 0 ? b * strides[band]! : 0;
      for (let t = 0; t < nt; t++)
        for (let row = 0; row < ny; row++)
          for (let col = 0; col < nx; col++)
            data[(t * ny + row) * nx + col] =
              values[base + (time >= 0 ? t * strides[time]! : 0) + row * strides[y]! + col * strides[x]!]!;
      return data;
    },
  };
}
