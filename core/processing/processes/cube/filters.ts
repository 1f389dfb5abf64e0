/** Filters: keep the labels of a dimension that match (bands, a bounding box, a time interval, a condition). */
import { spatialAxes, type DataCube } from '../../cube/cube.ts';
import { ProcessingError, invalidArgument } from '../../errors.ts';
import type { Callback } from '../../evaluate/callback.ts';
import type { Args, ProcessDefinition } from '../../process.ts';
import type { BoundingBox } from '../../services.ts';
import { transformBetween, transformedExtent, type Crs } from '../../values/crs.ts';
import { parseDateTime, parseInstant, instantOf } from '../../values/datetime.ts';
import { axisOf, selectIndices } from './helpers.ts';
import { filterSpatial } from './masks.ts';

function filterBands({ data, bands, wavelengths }: Args): DataCube {
  const cube = data as DataCube;
  const names = (bands as string[] | null) ?? [];
  if (names.length === 0 && ((wavelengths as unknown[] | null) ?? []).length === 0)
    throw new ProcessingError(
      'BandFilterParameterMissing',
      'The process `filter_bands` requires any of the parameters `bands`, `common_names` or `wavelengths` to be set.',
    );
  const axis = cube.dimensions.findIndex((d) => d.type === 'bands');
  if (axis < 0) throw new ProcessingError('DimensionMissing', 'A band dimension is missing.');
  const labels = cube.dimensions[axis]!.labels;
  // Bands in the order asked; names that match no band are skipped (the cube has no wavelength metadata).
  const indices = names.flatMap((name) => {
    const i = labels.indexOf(name);
    return i < 0 ? [] : [i];
  });
  return selectIndices(cube, axis, [...new Set(indices)]);
}

/** A bounding box in another CRS: its edges densified and transformed, and their extent taken. */
export function bboxIn(box: BoundingBox, to: Crs | undefined): BoundingBox {
  const transform = transformBetween(box.crs ?? 'EPSG:4326', to);
  if (!transform) return box;
  return { ...transformedExtent(box.west, box.south, box.east, box.north, transform), crs: to ?? null };
}

/** The raster cube restricted to the pixels whose centre lies in the box (edges included). */
export function filterBbox(cube: DataCube, box: BoundingBox): DataCube {
  const { x, y } = spatialAxes(cube);
  const inCube = bboxIn(box, cube.dimensions[x]!.crs ?? cube.dimensions[y]!.crs);
  const keep = (axis: number, lo: number, hi: number) =>
    cube.dimensions[axis]!.labels.flatMap((l, i) => (typeof l === 'number' && l >= lo && l <= hi ? [i] : []));
  const xs = keep(x, inCube.west, inCube.east);
  const ys = keep(y, inCube.south, inCube.north);
  return selectIndices(selectIndices(cube, x, xs), y, ys);
}

/** Instants of a left-closed interval; null ends are open. TemporalExtentEmpty when it holds no instant. */
export function temporalInterval(extent: readonly (string | null)[], process: string): [number, number] {
  const [start, end] = extent.map((v) => {
    if (v === null) return null;
    const t = parseInstant(v);
    if (t === undefined) throw invalidArgument(process, 'extent', `not a date or date-time: ${v}`);
    return t;
  });
  if (start === null && end === null) throw invalidArgument(process, 'extent', 'both ends of the interval are open');
  const lo = start ?? -Infinity;
  const hi = end ?? Infinity;
  if (!(hi > lo))
    throw new ProcessingError(
      'TemporalExtentEmpty',
      'The temporal extent is empty. The second instant in time must always be greater/later than the first instant in time.',
    );
  return [lo, hi];
}

/** Instants of the labels of a temporal dimension (NaN for labels that are not dates). */
export function labelInstants(labels: readonly (string | number)[]): number[] {
  return labels.map((l) => {
    if (typeof l !== 'string') return NaN;
    const parts = parseDateTime(l);
    return parts ? instantOf(parts) : NaN;
  });
}

export function filterTemporal(
  cube: DataCube,
  extent: readonly (string | null)[],
  dimension: string | null | undefined,
): DataCube {
  const [lo, hi] = temporalInterval(extent, 'filter_temporal');
  const axes =
    dimension === null || dimension === undefined
      ? cube.dimensions.flatMap((d, i) => (d.type === 'temporal' ? [i] : []))
      : [axisOf(cube, dimension)];
  if (axes.length === 0) throw new ProcessingError('DimensionNotAvailable', 'The data cube has no temporal dimension.');
  let result = cube;
  for (const axis of axes) {
    const times = labelInstants(result.dimensions[axis]!.labels);
    result = selectIndices(
      result,
      axis,
      times.flatMap((t, i) => (t >= lo && t < hi ? [i] : [])),
    );
  }
  return result;
}

async function filterLabels({ data, condition, dimension, context }: Args): Promise<DataCube> {
  const cube = data as DataCube;
  const axis = axisOf(cube, dimension as string);
  const keep: number[] = [];
  const labels = cube.dimensions[axis]!.labels;
  for (let i = 0; i < labels.length; i++) {
    const verdict = await (condition as Callback).call({ value: labels[i], context });
    if (verdict === true) keep.push(i);
  }
  return selectIndices(cube, axis, keep);
}

export const filterProcesses: ProcessDefinition[] = [
  { id: 'filter_bands', run: filterBands },
  {
    id: 'filter_bbox',
    run: ({ data, extent }: Args) => {
      const cube = data as DataCube;
      if (cube.dimensions.some((d) => d.type === 'geometry'))
        throw invalidArgument('filter_bbox', 'data', 'filtering vector data cubes by a bounding box is not supported');
      return filterBbox(cube, extent as BoundingBox);
    },
  },
  {
    id: 'filter_temporal',
    run: ({ data, extent, dimension }: Args) => {
      const cube = data as DataCube;
      return filterTemporal(cube, extent as (string | null)[], dimension as string | null);
    },
  },
  { id: 'filter_labels', run: filterLabels },
  {
    id: 'filter_spatial',
    run: ({ data, geometries }: Args) => filterSpatial(data as DataCube, geometries, 'filter_spatial', 'geometries'),
  },
];
