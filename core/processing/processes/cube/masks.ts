/**
 * Masks and merges: `mask` (a raster mask aligned by labels), `mask_polygon` and `filter_spatial` (pixel
 * centres inside polygons), `merge_cubes` (the union of two cubes' labels, overlaps through a resolver).
 */
import { bboxOf, unionBbox, type Bbox } from '../../../features/geometry.ts';
import { alignTo, labelKey } from '../../cube/align.ts';
import { DataCube, withoutUnits } from '../../cube/cube.ts';
import type { Dimension } from '../../cube/dimension.ts';
import { memoryCube } from '../../cube/memory.ts';
import { MapSource } from '../../cube/sources/map.ts';
import { MergeSource } from '../../cube/sources/merge.ts';
import { ProcessingError, invalidArgument } from '../../errors.ts';
import type { Callback } from '../../evaluate/callback.ts';
import type { Args, ProcessContext, ProcessDefinition } from '../../process.ts';
import type { Crs } from '../../values/crs.ts';
import { featuresOfArgument, type MaybeEmptyFeature } from '../../values/geojson.ts';
import { parseInstant } from '../../values/datetime.ts';
import { isCube } from '../../cube/cube.ts';
import { gridOf } from '../../zonal/grid.ts';
import { toGridGeometries, unionMask } from '../../zonal/table.ts';
import { elementMap } from './apply.ts';
import { selectIndices } from './helpers.ts';

/** The features and CRS of a geometries argument: GeoJSON (EPSG:4326) or a vector cube. */
export function geometriesOf(
  value: unknown,
  process: string,
  parameter: string,
): { features: MaybeEmptyFeature[]; crs: Crs } {
  if (isCube(value)) {
    const dimension = value.dimensions.find((d) => d.type === 'geometry');
    if (!dimension || !value.metadata.geometries)
      throw invalidArgument(process, parameter, 'expected a vector data cube with a geometry dimension');
    return { features: [...value.metadata.geometries], crs: dimension.crs ?? 'EPSG:4326' };
  }
  return { features: featuresOfArgument(value, process, parameter), crs: 'EPSG:4326' };
}

/** A replacement value as a cell: null is nodata. */
function replacementCell(value: unknown, process: string): number {
  if (value === null || value === undefined) return NaN;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw invalidArgument(process, 'replacement', 'a data cube holds numbers and booleans only');
}

/** A (y, x) cube of 1 where a pixel centre is inside a polygon, 0 elsewhere, on the grid of `cube`. */
function polygonPlane(cube: DataCube, value: unknown, process: string, parameter: string): DataCube {
  const { features, crs } = geometriesOf(value, process, parameter);
  if (!features.some((f) => f.geometry && (f.geometry.type === 'Polygon' || f.geometry.type === 'MultiPolygon')))
    throw invalidArgument(process, parameter, 'at least one polygon is needed');
  const grid = gridOf(cube);
  const mask = unionMask(toGridGeometries(features, crs, grid), grid);
  const dims = [cube.dimensions[grid.yAxis]!, cube.dimensions[grid.xAxis]!];
  return memoryCube({ dimensions: dims, data: Float64Array.from(mask) });
}

function replaceWhere(cube: DataCube, mask: DataCube, test: (m: number) => boolean, replacement: number): DataCube {
  const aligned = alignTo(mask, cube.dimensions, cube.metadata.chunkShape);
  return new DataCube(
    new MapSource([cube, aligned], cube.metadata, ([data, m], out) => {
      for (let i = 0; i < out.length; i++) out[i] = test(m![i]!) ? replacement : data![i]!;
    }),
  );
}

function maskPolygon({ data, mask, replacement, inside }: Args): DataCube {
  const cube = data as DataCube;
  const plane = polygonPlane(cube, mask, 'mask_polygon', 'mask');
  const value = replacementCell(replacement, 'mask_polygon');
  // Nodata stays nodata, whatever the replacement.
  const aligned = alignTo(plane, cube.dimensions, cube.metadata.chunkShape);
  return new DataCube(
    new MapSource([cube, aligned], cube.metadata, ([d, m], out) => {
      for (let i = 0; i < out.length; i++) {
        const v = d![i]!;
        out[i] = v === v && (m![i] === 1) === (inside === true) ? value : v;
      }
    }),
  );
}

/** The cube cut to the bounding box of the polygons, with pixels outside them nodata. */
export function filterSpatial(cube: DataCube, geometries: unknown, process: string, parameter: string): DataCube {
  const plane = polygonPlane(cube, geometries, process, parameter);
  const grid = gridOf(cube);
  const { features, crs } = geometriesOf(geometries, process, parameter);
  let bbox: Bbox | undefined;
  for (const g of toGridGeometries(features, crs, grid)) {
    const b = g && bboxOf(g);
    if (b) bbox = unionBbox(bbox, b);
  }
  const [c0, r0, c1, r1] = bbox ?? [Infinity, Infinity, -Infinity, -Infinity];
  // Pixels whose centre is inside the geometries' bounding box.
  const keep = (n: number, lo: number, hi: number) =>
    Array.from({ length: n }, (_, i) => i).filter((i) => i + 0.5 >= lo && i + 0.5 <= hi);
  const masked = replaceWhere(cube, plane, (m) => m === 0, NaN);
  return selectIndices(selectIndices(masked, grid.xAxis, keep(grid.nx, c0, c1)), grid.yAxis, keep(grid.ny, r0, r1));
}

function maskCube({ data, mask, replacement }: Args): DataCube {
  const cube = data as DataCube;
  const m = mask as DataCube;
  for (const d of m.dimensions) {
    const own = cube.dimension(d.name);
    if (!own)
      throw new ProcessingError('IncompatibleDataCubes', `The mask has dimension '${d.name}', which the data lacks.`);
    if (own.type !== 'spatial' && own.labels.some((l) => !d.labels.some((k) => labelKey(d, k) === labelKey(own, l))))
      throw new ProcessingError('IncompatibleDataCubes', `The mask lacks labels of dimension '${d.name}'.`);
  }
  // Non-zero and true mask values replace; nodata in the mask replaces nothing.
  return replaceWhere(cube, m, (v) => v === v && v !== 0, replacementCell(replacement, 'mask'));
}

/** The labels of a merged dimension: the first cube's, then the second's new ones; sorted where ordered. */
function mergedDimension(a: Dimension, b: Dimension | undefined): Dimension {
  if (!b) return a;
  const seen = new Set(a.labels.map((l) => labelKey(a, l)));
  const labels = [...a.labels, ...b.labels.filter((l) => !seen.has(labelKey(b, l)))];
  if (labels.length === a.labels.length) return a;
  if (a.type === 'temporal') labels.sort((p, q) => (parseInstant(String(p)) ?? 0) - (parseInstant(String(q)) ?? 0));
  else if (a.type === 'spatial') {
    const descending = a.labels.length > 1 && (a.labels[1] as number) < (a.labels[0] as number);
    labels.sort((p, q) => (descending ? (q as number) - (p as number) : (p as number) - (q as number)));
  }
  return { ...a, labels };
}

function mergeCubes({ cube1, cube2, overlap_resolver, context }: Args, processContext: ProcessContext): DataCube {
  const [a, b] = [cube1 as DataCube, cube2 as DataCube];
  for (const d of b.dimensions)
    if (!a.dimension(d.name))
      throw invalidArgument(
        'merge_cubes',
        'cube2',
        `dimension '${d.name}' is not in cube1; add it with add_dimension first`,
      );
  const dimensions = a.dimensions.map((d) => mergedDimension(d, b.dimension(d.name)));
  const chunkShape = a.metadata.chunkShape.map((c, i) =>
    Math.min(Math.max(c, 1), Math.max(1, dimensions[i]!.labels.length)),
  );
  const alignedA = alignTo(a, dimensions, chunkShape);
  const alignedB = alignTo(b, dimensions, chunkShape);
  const presence = (cube: DataCube) =>
    dimensions.map((d) => {
      const own = cube.dimension(d.name);
      if (!own) return new Uint8Array(d.labels.length).fill(1);
      const keys = new Set(own.labels.map((l) => labelKey(own, l)));
      return Uint8Array.from(d.labels, (l) => (keys.has(labelKey(d, l)) ? 1 : 0));
    });
  const [pa, pb] = [presence(a), presence(b)];
  const overlap = dimensions.every((_, i) => pa[i]!.some((v, k) => v === 1 && pb[i]![k] === 1));
  if (overlap && !overlap_resolver)
    throw new ProcessingError(
      'OverlapResolverMissing',
      'Overlapping data cubes, but no overlap resolver has been specified.',
    );
  const kinds = [a.metadata.cellType, b.metadata.cellType];
  const resolver = overlap_resolver
    ? elementMap(overlap_resolver as Callback, kinds, ['x', 'y'], { context }, processContext)
    : undefined;
  const cellType = resolver
    ? resolver.kind === 'boolean'
      ? 'boolean'
      : 'number'
    : kinds.every((k) => k === 'boolean')
      ? 'boolean'
      : 'number';
  // Without a resolver every value comes from one of the cubes, in its band's units; a resolver computes new ones.
  const units = { ...a.metadata.units, ...b.metadata.units };
  return new DataCube(
    new MergeSource(
      {
        ...withoutUnits(a.metadata),
        ...(!resolver && Object.keys(units).length > 0 && { units }),
        dimensions,
        chunkShape,
        cellType,
        dtype: a.metadata.dtype === 'float64' || b.metadata.dtype === 'float64' ? 'float64' : 'float32',
      },
      [alignedA, alignedB],
      [pa, pb],
      resolver?.map,
    ),
  );
}

export const maskProcesses: ProcessDefinition[] = [
  { id: 'mask', run: maskCube },
  { id: 'mask_polygon', run: maskPolygon },
  { id: 'merge_cubes', run: mergeCubes },
];
