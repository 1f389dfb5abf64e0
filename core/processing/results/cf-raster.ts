/**
 * A raster cube laid out as the CF files Stratus writes (netCDF-4 and Zarr results): `time` when the cube has a
 * temporal dimension, `lat` and `lon`, one float32 variable per label of the `bands` dimension over them (one
 * named `value` without a bands dimension), the `spatial_ref` grid mapping. Grids in EPSG:4326 only, the reference
 * system of every store; every other dimension must hold one label.
 *
 * `cfLayout` reads no values; `cfBlock` reads the variables' values over one block of (time, lat, lon), so that a
 * writer can go chunk by chunk; `cfRaster` reads them all (for a writer that needs the whole array, netCDF).
 */
import type { DataCube } from '../cube/cube.ts';
import { product, stridesOf } from '../cube/grid.ts';
import { readRegion } from '../cube/read.ts';
import { ProcessingError } from '../errors.ts';
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

/** The variable of a cube without a bands dimension. */
export const UNBANDED_VARIABLE = 'value';

/** A variable name for a band label: letters, digits and `_`, not starting with a digit. */
export const variableName = (label: string) => {
  const name = label.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`;
};

export interface CfLayout {
  /** Seconds since the epoch of the temporal labels; undefined without a temporal dimension. */
  time: BigInt64Array | undefined;
  lat: Float64Array;
  lon: Float64Array;
  /** Band labels (none without a bands dimension), in order. */
  bands: string[];
  /** The variables' names, one per band (`value` alone without a bands dimension). */
  variables: string[];
  /** GDAL's affine transform of the grid (north-west corner of the first cell). */
  geoTransform: number[];
  /** The shape of each variable: `[time, lat, lon]`, or `[lat, lon]`. */
  shape: number[];
  /** The cube's axes that are the variables' axes (in their order), and its bands axis (-1 when none). */
  axes: number[];
  bandAxis: number;
}

export interface CfRaster extends CfLayout {
  /** The values of each variable in C order over `shape`. */
  values: Float32Array[];
}

/** The layout of `cube` as `format`, refused with FormatUnsuitable when the cube has no such layout. */
export function cfLayout(cube: DataCube, format: string): CfLayout {
  const { dimensions } = cube;
  const { x, y, dx, dy } = imageGrid(cube, format, ['bands', 'temporal']);
  if (crsKey(dimensions[x]!.crs ?? dimensions[y]!.crs) !== 'EPSG:4326')
    throw unsuitable(format, 'its grid is not EPSG:4326');
  const time = dimensions.findIndex((d) => d.type === 'temporal');
  const bandAxis = dimensions.findIndex((d) => d.type === 'bands');
  const instants = time >= 0 ? labelInstants(dimensions[time]!.labels as string[]) : [];
  if (instants.some(Number.isNaN)) throw unsuitable(format, 'a temporal label is not a date');
  const lat = Float64Array.from(dimensions[y]!.labels as number[]);
  const lon = Float64Array.from(dimensions[x]!.labels as number[]);
  const bands = bandAxis >= 0 ? dimensions[bandAxis]!.labels.map(String) : [];
  const variables = bandAxis >= 0 ? bands.map(variableName) : [UNBANDED_VARIABLE];
  const taken = variables.find((v, i) => variables.indexOf(v) !== i);
  if (taken) throw unsuitable(format, `two band labels make the same variable name '${taken}'`);
  return {
    time: time >= 0 ? BigInt64Array.from(instants, (t) => BigInt(Math.round(t / 1000))) : undefined,
    lat,
    lon,
    bands,
    variables,
    geoTransform: [lon[0]! - dx / 2, dx, 0, lat[0]! - dy / 2, 0, dy],
    shape: time >= 0 ? [instants.length, lat.length, lon.length] : [lat.length, lon.length],
    axes: time >= 0 ? [time, y, x] : [y, x],
    bandAxis,
  };
}

/**
 * The values of the variables `from` to `to` (exclusive) over the block `start` + `size` of the variables' axes,
 * read from the cube's chunks that the block touches: one float32 array per variable in C order over `size`, NaN
 * where the block reaches past the cube.
 */
export async function cfBlock(
  cube: DataCube,
  layout: CfLayout,
  start: readonly number[],
  size: readonly number[],
  variables: [from: number, to: number],
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const regionStart = cube.dimensions.map(() => 0);
  const regionShape = cube.dimensions.map(() => 1);
  layout.axes.forEach((axis, i) => {
    regionStart[axis] = start[i]!;
    regionShape[axis] = size[i]!;
  });
  if (layout.bandAxis >= 0) {
    regionStart[layout.bandAxis] = variables[0];
    regionShape[layout.bandAxis] = variables[1] - variables[0];
  }
  const values = await readRegion(cube, regionStart, regionShape, signal);
  const strides = stridesOf(regionShape);
  const cells = product(size);
  const out: Float32Array[] = [];
  for (let b = 0; b < variables[1] - variables[0]; b++) {
    const data = new Float32Array(cells);
    const base = layout.bandAxis >= 0 ? b * strides[layout.bandAxis]! : 0;
    const axisStrides = layout.axes.map((axis) => strides[axis]!);
    // The variables' last axis is the cube's x, whose stride is 1 when x is the cube's last dimension.
    const [sRow, sCol] = axisStrides.slice(-2) as [number, number];
    const [nRow, nCol] = size.slice(-2) as [number, number];
    const outer = size.length === 3 ? size[0]! : 1;
    const sOuter = size.length === 3 ? axisStrides[0]! : 0;
    let k = 0;
    for (let t = 0; t < outer; t++)
      for (let row = 0; row < nRow; row++) {
        const from = base + t * sOuter + row * sRow;
        for (let col = 0; col < nCol; col++) data[k++] = values[from + col * sCol]!;
      }
    out.push(data);
  }
  return out;
}

/** The layout and every value, refused past `maxCells` as `materialize` refuses. */
export async function cfRaster(
  cube: DataCube,
  format: string,
  maxCells: number,
  signal?: AbortSignal,
): Promise<CfRaster> {
  const layout = cfLayout(cube, format);
  if (cube.cells > maxCells)
    throw new ProcessingError(
      'ProcessGraphComplexity',
      `The data cube has ${cube.cells} cells, more than the ${maxCells} that may be held in memory at once; use a batch job or a smaller extent.`,
    );
  const values = await cfBlock(
    cube,
    layout,
    layout.shape.map(() => 0),
    layout.shape,
    [0, layout.variables.length],
    signal,
  );
  return { ...layout, values };
}
