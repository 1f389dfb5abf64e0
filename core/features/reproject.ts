/**
 * Reprojection of source coordinates into the stored CRS (EPSG:4326, longitude/latitude) with proj4. Only CRSs
 * whose definition needs no lookup table are accepted: WGS 84 and its aliases, NAD83, Web Mercator, the WGS 84
 * UTM zones and the ETRS89 UTM zones; any other is refused by name, rather than guessed.
 */
import proj4 from 'proj4';
import { RunError } from '../runs/errors.ts';
import type { Feature, Geometry, Position } from './geometry.ts';

/** CRSs that already are longitude/latitude on WGS 84 (GeoJSON's own, and EPSG:4326 as sources use it). */
const WGS84_NAMES = new Set(['EPSG:4326', 'OGC:CRS84', 'OGC:1.3:CRS84', 'CRS84']);

/** `urn:ogc:def:crs:EPSG::3857`, `EPSG:3857`, `urn:ogc:def:crs:OGC:1.3:CRS84` -> `EPSG:3857`, `OGC:1.3:CRS84`. */
export function normalizeCrsName(name: string): string {
  const urn = /^urn:ogc:def:crs:([A-Za-z]+):([0-9.]*):(\w+)$/.exec(name.trim());
  if (urn)
    return urn[2] && urn[1]!.toUpperCase() === 'OGC' ? `OGC:${urn[2]}:${urn[3]}` : `${urn[1]!.toUpperCase()}:${urn[3]}`;
  return name.trim().toUpperCase();
}

/**
 * The proj4 definition of a normalized CRS name (`EPSG:4326`, `EPSG:32632`, ...), or undefined when it is not
 * one of the supported ones. The processing engine reprojects geometries and bounding boxes with it too.
 */
export function proj4Definition(crs: string): string | undefined {
  if (WGS84_NAMES.has(crs)) return 'EPSG:4326';
  if (crs === 'EPSG:3857' || crs === 'EPSG:900913') return 'EPSG:3857';
  if (crs === 'EPSG:4269') return 'EPSG:4269';
  const etrs = /^EPSG:258(\d{2})$/.exec(crs);
  if (etrs && Number(etrs[1]) >= 28 && Number(etrs[1]) <= 38)
    return `+proj=utm +zone=${Number(etrs[1])} +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs`;
  const utm = /^EPSG:32([67])(\d{2})$/.exec(crs);
  if (!utm) return undefined;
  const [, hemisphere, zone] = utm;
  const number = Number(zone);
  if (number < 1 || number > 60) return undefined;
  return `+proj=utm +zone=${number}${hemisphere === '7' ? ' +south' : ''} +datum=WGS84 +units=m +no_defs`;
}

/** A geometry with every position mapped (the processing engine maps geometries into its grids with it too). */
export function mapGeometry(geometry: Geometry, map: (p: Position) => Position): Geometry {
  switch (geometry.type) {
    case 'Point':
      return { type: 'Point', coordinates: map(geometry.coordinates) };
    case 'MultiPoint':
    case 'LineString':
      return { type: geometry.type, coordinates: geometry.coordinates.map(map) };
    case 'MultiLineString':
    case 'Polygon':
      return { type: geometry.type, coordinates: geometry.coordinates.map((line) => line.map(map)) };
    case 'MultiPolygon':
      return { type: 'MultiPolygon', coordinates: geometry.coordinates.map((p) => p.map((r) => r.map(map))) };
  }
}

/**
 * Features with their positions in EPSG:4326. `sourceCrs` is the CRS the source declares (undefined: GeoJSON's
 * WGS 84). A third coordinate is kept as it is.
 */
export function reprojectToStored(features: Feature[], sourceCrs: string | undefined): Feature[] {
  if (sourceCrs === undefined || WGS84_NAMES.has(normalizeCrsName(sourceCrs))) return features;
  const definition = proj4Definition(normalizeCrsName(sourceCrs));
  if (!definition)
    throw new RunError(
      'UnsupportedCrs',
      `the source declares CRS ${sourceCrs}; supported are EPSG:4326, OGC:CRS84, EPSG:4269, EPSG:3857, WGS 84 UTM zones (EPSG:32601-32660, 32701-32760) and ETRS89 UTM zones (EPSG:25828-25838)`,
    );
  const converter = proj4(definition, 'EPSG:4326');
  const map = ([x, y, ...rest]: Position): Position => [...converter.forward([x!, y!]), ...rest];
  return features.map((f) => ({ ...f, geometry: mapGeometry(f.geometry, map) }));
}
