/**
 * Reference systems as processes name them: an EPSG code (number or `EPSG:n`), another name the feature
 * reprojection knows (`OGC:CRS84`), or WKT2. Transforms go through proj4 with the same CRS list as stored feature
 * collections (`core/features/reproject.ts`), plus any WKT proj4 reads; others are refused by name.
 */
import proj4 from 'proj4';
import { normalizeCrsName, proj4Definition } from '../../features/reproject.ts';
import { ProcessingError } from '../errors.ts';

export type Crs = string | number;

export const WGS84: Crs = 'EPSG:4326';

/** A comparable name: `EPSG:n` for codes and names, the trimmed text for WKT. */
export function crsKey(crs: Crs | null | undefined): string {
  if (crs === null || crs === undefined) return 'EPSG:4326';
  if (typeof crs === 'number') return `EPSG:${crs}`;
  const name = normalizeCrsName(crs);
  return proj4Definition(name) === 'EPSG:4326' ? 'EPSG:4326' : /^[A-Z]+:/.test(name) ? name : crs.trim();
}

function definition(crs: Crs | null | undefined): string {
  const key = crsKey(crs);
  const known = proj4Definition(key);
  if (known) return known;
  if (/^(PROJCRS|GEOGCRS|PROJCS|GEOGCS|BOUNDCRS)\b/i.test(key)) return key;
  throw new ProcessingError(
    'ProcessParameterInvalid',
    `The reference system ${String(crs).slice(0, 80)} is not supported; use EPSG:4326, EPSG:3857, a WGS 84 or ETRS89 UTM zone, or WKT2.`,
  );
}

export type Transform = (x: number, y: number) => [number, number];

/** A transform of positions from one CRS to another, or undefined when they are the same. */
export function transformBetween(from: Crs | null | undefined, to: Crs | null | undefined): Transform | undefined {
  if (crsKey(from) === crsKey(to)) return undefined;
  let converter: proj4.Converter;
  try {
    converter = proj4(definition(from), definition(to));
  } catch (err) {
    if (err instanceof ProcessingError) throw err;
    throw new ProcessingError(
      'ProcessParameterInvalid',
      `The reference system cannot be read: ${(err as Error).message}`,
    );
  }
  return (x, y) => converter.forward([x, y]) as [number, number];
}

export interface Extent {
  west: number;
  south: number;
  east: number;
  north: number;
}

/**
 * The extent of a rectangle (corners x0, y0 and x1, y1 in any order) after a transform: its edges densified to
 * 21 points each, so that the curved images of straight edges are covered too.
 */
export function transformedExtent(
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  transform: Transform | undefined,
): Extent {
  const extent = { west: Infinity, south: Infinity, east: -Infinity, north: -Infinity };
  const add = (x: number, y: number) => {
    const [tx, ty] = transform ? transform(x, y) : [x, y];
    extent.west = Math.min(extent.west, tx);
    extent.east = Math.max(extent.east, tx);
    extent.south = Math.min(extent.south, ty);
    extent.north = Math.max(extent.north, ty);
  };
  for (let i = 0; i <= 20; i++) {
    const fx = x0 + ((x1 - x0) * i) / 20;
    const fy = y0 + ((y1 - y0) * i) / 20;
    add(fx, y0);
    add(fx, y1);
    add(x0, fy);
    add(x1, fy);
  }
  return extent;
}
