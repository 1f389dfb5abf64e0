/** GeoJSON geometries and features as Stratus stores them (RFC 7946 shapes; positions are [x, y] or [x, y, z]). */

export type Position = number[];

export type Geometry =
  | { type: 'Point'; coordinates: Position }
  | { type: 'MultiPoint'; coordinates: Position[] }
  | { type: 'LineString'; coordinates: Position[] }
  | { type: 'MultiLineString'; coordinates: Position[][] }
  | { type: 'Polygon'; coordinates: Position[][] }
  | { type: 'MultiPolygon'; coordinates: Position[][][] };

export type GeometryType = Geometry['type'];

export const GEOMETRY_TYPES: readonly GeometryType[] = [
  'Point',
  'MultiPoint',
  'LineString',
  'MultiLineString',
  'Polygon',
  'MultiPolygon',
];

export type PropertyValue = string | number | boolean | null | PropertyValue[] | { [key: string]: PropertyValue };

export interface Feature {
  geometry: Geometry;
  properties: Record<string, PropertyValue>;
}

export type Bbox = [number, number, number, number];

/** Every position of a geometry, in order. */
export function positionsOf(geometry: Geometry): Position[] {
  switch (geometry.type) {
    case 'Point':
      return [geometry.coordinates];
    case 'MultiPoint':
    case 'LineString':
      return geometry.coordinates;
    case 'MultiLineString':
    case 'Polygon':
      return geometry.coordinates.flat();
    case 'MultiPolygon':
      return geometry.coordinates.flat(2);
  }
}

/** The bounding box of a geometry's x and y, or undefined when it has no position. */
export function bboxOf(geometry: Geometry): Bbox | undefined {
  let [xmin, ymin, xmax, ymax] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of positionsOf(geometry) as [number, number][]) {
    if (x < xmin) xmin = x;
    if (x > xmax) xmax = x;
    if (y < ymin) ymin = y;
    if (y > ymax) ymax = y;
  }
  return xmin === Infinity ? undefined : [xmin, ymin, xmax, ymax];
}

/** The smallest box holding both boxes. */
export function unionBbox(a: Bbox | undefined, b: Bbox): Bbox {
  if (!a) return [...b];
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
}
