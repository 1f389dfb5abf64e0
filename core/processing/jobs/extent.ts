/**
 * Where and when a saved value lies, for the STAC Item of a job's results: the WGS84 box of a raster cube's pixels
 * or of a vector cube's geometries, and the first and last of its temporal labels.
 */
import { bboxOf, unionBbox, type Bbox } from '../../features/geometry.ts';
import type { ResultExtent } from '../../resources/processing-job/schema.ts';
import { isCube, type DataCube } from '../cube/cube.ts';
import { spatialIndex, stepOf } from '../cube/dimension.ts';
import { bboxIn } from '../processes/cube/filters.ts';
import { parseInstant } from '../values/datetime.ts';

function rasterBox(cube: DataCube): Bbox | undefined {
  const [x, y] = [spatialIndex(cube.dimensions, 'x'), spatialIndex(cube.dimensions, 'y')];
  if (x < 0 || y < 0) return undefined;
  const edges = (i: number) => {
    const labels = cube.dimensions[i]!.labels.filter((l): l is number => typeof l === 'number');
    if (labels.length === 0) return undefined;
    const half = Math.abs(stepOf(cube.dimensions[i]!) ?? 0) / 2;
    return [Math.min(...labels) - half, Math.max(...labels) + half] as const;
  };
  const [xs, ys] = [edges(x), edges(y)];
  if (!xs || !ys) return undefined;
  const crs = cube.dimensions[x]!.crs ?? cube.dimensions[y]!.crs ?? 'EPSG:4326';
  const box = bboxIn({ west: xs[0], south: ys[0], east: xs[1], north: ys[1], crs }, 'EPSG:4326');
  return [box.west, box.south, box.east, box.north];
}

function vectorBox(cube: DataCube): Bbox | undefined {
  let box: Bbox | undefined;
  for (const feature of cube.metadata.geometries ?? []) {
    const own = feature.geometry ? bboxOf(feature.geometry) : undefined;
    if (own) box = unionBbox(box, own);
  }
  const crs = cube.dimensions.find((d) => d.type === 'geometry')?.crs ?? 'EPSG:4326';
  if (!box) return undefined;
  const wgs84 = bboxIn({ west: box[0], south: box[1], east: box[2], north: box[3], crs }, 'EPSG:4326');
  return [wgs84.west, wgs84.south, wgs84.east, wgs84.north];
}

function timeRange(cube: DataCube): Pick<ResultExtent, 'start' | 'end'> {
  const instants = cube.dimensions
    .filter((d) => d.type === 'temporal')
    .flatMap((d) => d.labels.map((l) => (typeof l === 'string' ? parseInstant(l) : undefined)))
    .filter((t): t is number => t !== undefined && Number.isFinite(t));
  if (instants.length === 0) return {};
  return {
    start: new Date(Math.min(...instants)).toISOString(),
    end: new Date(Math.max(...instants)).toISOString(),
  };
}

/** The extent of every cube among `values`, merged; empty for values that are not cubes. */
export function extentOf(values: readonly unknown[]): ResultExtent {
  const cubes = values.filter(isCube);
  let bbox: Bbox | undefined;
  let start: string | undefined;
  let end: string | undefined;
  for (const cube of cubes) {
    const box = cube.metadata.geometries ? vectorBox(cube) : rasterBox(cube);
    if (box && box.every(Number.isFinite)) bbox = unionBbox(bbox, box);
    const range = timeRange(cube);
    if (range.start && (!start || range.start < start)) start = range.start;
    if (range.end && (!end || range.end > end)) end = range.end;
  }
  return { ...(bbox && { bbox }), ...(start && { start }), ...(end && { end }) };
}
