/**
 * Geometries passed to processes (`aggregate_spatial`, `mask_polygon`, `filter_spatial`, `load_geojson`): a GeoJSON
 * geometry, a Feature or a FeatureCollection, repaired as stored feature collections are, as a list of features
 * in the order given. Empty geometries stay in the list (openEO keeps them as labels without values).
 */
import { repairedGeometry } from '../../features/validate.ts';
import type { Feature, Geometry, PropertyValue } from '../../features/geometry.ts';
import { invalidArgument } from '../errors.ts';
import { isPlainObject } from './kinds.ts';

export type { Feature, Geometry };

/** A feature whose geometry may be empty (`null`). */
export interface MaybeEmptyFeature {
  geometry: Geometry | null;
  properties: Record<string, PropertyValue>;
  id?: string | number;
}

function geometryOf(value: unknown, process: string, parameter: string): Geometry | null {
  try {
    return repairedGeometry(value) ?? null;
  } catch (err) {
    throw invalidArgument(process, parameter, `invalid GeoJSON geometry: ${(err as Error).message}`);
  }
}

/** The features of a GeoJSON argument. */
export function featuresOfArgument(value: unknown, process: string, parameter: string): MaybeEmptyFeature[] {
  if (!isPlainObject(value)) throw invalidArgument(process, parameter, 'expected a GeoJSON object');
  const feature = (raw: unknown): MaybeEmptyFeature => {
    if (!isPlainObject(raw) || raw.type !== 'Feature')
      throw invalidArgument(process, parameter, 'a FeatureCollection may only hold Features');
    const properties = isPlainObject(raw.properties) ? (raw.properties as Record<string, PropertyValue>) : {};
    const id = typeof raw.id === 'string' || typeof raw.id === 'number' ? raw.id : undefined;
    return { geometry: geometryOf(raw.geometry, process, parameter), properties, ...(id === undefined ? {} : { id }) };
  };
  switch (value.type) {
    case 'FeatureCollection':
      if (!Array.isArray(value.features))
        throw invalidArgument(process, parameter, 'a FeatureCollection needs a features array');
      return value.features.map(feature);
    case 'Feature':
      return [feature(value)];
    case 'GeometryCollection':
      throw invalidArgument(process, parameter, 'GeometryCollection is not supported; use a FeatureCollection');
    default:
      return [{ geometry: geometryOf(value, process, parameter), properties: {} }];
  }
}

/** True for the polygonal geometry types. */
export function isPolygonal(
  geometry: Geometry | null,
): geometry is Extract<Geometry, { type: 'Polygon' | 'MultiPolygon' }> {
  return geometry !== null && (geometry.type === 'Polygon' || geometry.type === 'MultiPolygon');
}

/** The polygons of a polygonal geometry, each as rings of [x, y] positions. */
export function polygonsOf(geometry: Geometry): number[][][][] {
  if (geometry.type === 'Polygon') return [geometry.coordinates];
  if (geometry.type === 'MultiPolygon') return geometry.coordinates;
  return [];
}
