/**
 * Turns a source's GeoJSON into features Stratus can store: structurally invalid GeoJSON is refused, geometries
 * are repaired where the repair is unambiguous (open rings closed, empty geometries and empty parts dropped) and
 * every repair is reported by feature; geometries that cannot be repaired and missing or duplicate
 * `id_property` values are reported by feature and fail the whole collection.
 */
import { RunError } from '../runs/errors.ts';
import {
  GEOMETRY_TYPES,
  positionsOf,
  type Feature,
  type Geometry,
  type GeometryType,
  type Position,
  type PropertyValue,
} from './geometry.ts';

export type RepairAction = 'closed-ring' | 'dropped-empty-geometry' | 'dropped-empty-part';
export type ProblemKind = 'missing-id' | 'duplicate-id' | 'invalid-geometry';

export interface FeatureRepair {
  /** `#<index in the source>`, with the id when the feature has one: `#3 (id "D4")`. */
  feature: string;
  action: RepairAction;
  count: number;
}

export interface FeatureProblem {
  feature: string;
  problem: ProblemKind;
  message: string;
}

export interface ValidationReport {
  received: number;
  stored: number;
  repairs: FeatureRepair[];
}

/** The problems that refused a collection, each by feature; the message names the first of them. */
export class FeatureValidationError extends RunError {
  readonly problems: FeatureProblem[];
  constructor(problems: FeatureProblem[]) {
    const shown = problems.slice(0, 10).map((p) => `${p.feature}: ${p.message}`);
    const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : '';
    super('InvalidFeatures', `${problems.length} feature problem(s): ${shown.join('; ')}${more}`);
    this.problems = problems;
  }
}

const invalidGeoJson = (message: string) => new RunError('InvalidGeoJSON', message);

/** Parses a GeoJSON document, failing with `InvalidGeoJSON` when it is not JSON. */
export function parseGeoJson(body: Uint8Array | string, origin: string): unknown {
  try {
    return JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body));
  } catch (err) {
    throw invalidGeoJson(`${origin} is not JSON: ${(err as Error).message}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The CRS a legacy GeoJSON document declares in its `crs` member (RFC 7946 dropped it; many files keep it). */
export function declaredCrs(document: unknown): string | undefined {
  if (!isObject(document) || !isObject(document.crs) || !isObject(document.crs.properties)) return undefined;
  const name = document.crs.properties.name;
  return typeof name === 'string' ? name : undefined;
}

/** The `features` array of a FeatureCollection document. */
export function featuresOf(document: unknown, origin: string): unknown[] {
  if (!isObject(document) || document.type !== 'FeatureCollection' || !Array.isArray(document.features))
    throw invalidGeoJson(`${origin} is not a GeoJSON FeatureCollection with a features array`);
  return document.features;
}

class Unrepairable extends Error {}

function position(value: unknown): Position {
  if (!Array.isArray(value) || value.length < 2 || value.length > 4 || !value.every((v) => Number.isFinite(v)))
    throw new Unrepairable(`position ${JSON.stringify(value)} is not 2 to 4 finite numbers`);
  return value as number[];
}

function positions(value: unknown): Position[] {
  if (!Array.isArray(value)) throw new Unrepairable('coordinates are not an array of positions');
  return value.map(position);
}

const samePosition = (a: Position, b: Position) => a.length === b.length && a.every((v, i) => v === b[i]);

interface Repairs {
  add(action: RepairAction): void;
}

/** A closed ring of at least 4 positions, or undefined for an empty ring. */
function ring(value: unknown, repairs: Repairs): Position[] | undefined {
  const line = positions(value);
  if (line.length === 0) return undefined;
  if (!samePosition(line[0]!, line.at(-1)!)) {
    line.push([...line[0]!]);
    repairs.add('closed-ring');
  }
  if (line.length < 4)
    throw new Unrepairable(`a ring has ${line.length - 1} distinct positions; at least 3 are needed`);
  return line;
}

/** A polygon without empty rings, or undefined when its outer ring is empty. */
function polygon(value: unknown, repairs: Repairs): Position[][] | undefined {
  if (!Array.isArray(value)) throw new Unrepairable('polygon coordinates are not an array of rings');
  const [outer, ...holes] = value.map((r) => ring(r, repairs));
  if (!outer) return undefined;
  const kept = holes.filter((h): h is Position[] => h !== undefined);
  if (kept.length < holes.length) repairs.add('dropped-empty-part');
  return [outer, ...kept];
}

function lineString(value: unknown): Position[] | undefined {
  const line = positions(value);
  if (line.length === 0) return undefined;
  if (line.length < 2) throw new Unrepairable('a line string has 1 position; at least 2 are needed');
  return line;
}

/** The parts of a multi-geometry that are not empty, reporting each dropped one. */
function parts<T>(value: unknown, part: (v: unknown) => T | undefined, repairs: Repairs): T[] {
  if (!Array.isArray(value)) throw new Unrepairable('coordinates are not an array of parts');
  const all = value.map(part);
  const kept = all.filter((p): p is T => p !== undefined);
  for (let n = kept.length; n < all.length; n++) repairs.add('dropped-empty-part');
  return kept;
}

/** The repaired geometry, or undefined when it is empty. */
function geometry(value: unknown, repairs: Repairs): Geometry | undefined {
  if (value === null || value === undefined) return undefined;
  if (!isObject(value)) throw new Unrepairable('geometry is not an object');
  const type = value.type as GeometryType;
  if (!GEOMETRY_TYPES.includes(type))
    throw new Unrepairable(`geometry type ${JSON.stringify(value.type)} is not supported`);
  const c = value.coordinates;
  const nonEmpty = <T>(coordinates: T | undefined, length: (t: T) => number) =>
    coordinates === undefined || length(coordinates) === 0 ? undefined : coordinates;
  switch (type) {
    case 'Point': {
      if (Array.isArray(c) && c.length === 0) return undefined;
      return { type, coordinates: position(c) };
    }
    case 'MultiPoint': {
      const coordinates = nonEmpty(positions(c), (p) => p.length);
      return coordinates && { type, coordinates };
    }
    case 'LineString': {
      const coordinates = lineString(c);
      return coordinates && { type, coordinates };
    }
    case 'MultiLineString': {
      const coordinates = nonEmpty(parts(c, lineString, repairs), (p) => p.length);
      return coordinates && { type, coordinates };
    }
    case 'Polygon': {
      const coordinates = polygon(c, repairs);
      return coordinates && { type, coordinates };
    }
    case 'MultiPolygon': {
      const coordinates = nonEmpty(
        parts(c, (p) => polygon(p, repairs), repairs),
        (p) => p.length,
      );
      return coordinates && { type, coordinates };
    }
  }
}

/**
 * A geometry repaired as stored features are (rings closed, empty parts dropped), or undefined when it is empty.
 * Throws an Error with the reason when it cannot be repaired. The processing engine reads GeoJSON arguments with it.
 */
export function repairedGeometry(value: unknown): Geometry | undefined {
  try {
    return geometry(value, { add: () => {} });
  } catch (err) {
    if (err instanceof Unrepairable) throw new Error(err.message, { cause: err });
    throw err;
  }
}

const label = (index: number, id: unknown) =>
  id === undefined || id === null || id === '' ? `#${index}` : `#${index} (id ${JSON.stringify(id)})`;

/**
 * Validates and repairs the features of a source. Returns the features to store (empty geometries dropped) and
 * the repairs made; throws `FeatureValidationError` listing every problem when any feature cannot be stored.
 */
export function validateFeatures(
  input: unknown[],
  idProperty: string,
): { features: Feature[]; report: ValidationReport } {
  const features: Feature[] = [];
  const repairs: FeatureRepair[] = [];
  const problems: FeatureProblem[] = [];
  const firstWithId = new Map<string, number>();
  input.forEach((raw, index) => {
    if (!isObject(raw) || raw.type !== 'Feature') throw invalidGeoJson(`feature #${index} is not a GeoJSON Feature`);
    if (raw.properties !== null && raw.properties !== undefined && !isObject(raw.properties))
      throw invalidGeoJson(`feature #${index}: properties is not an object`);
    const properties = (raw.properties ?? {}) as Record<string, PropertyValue>;
    const id = properties[idProperty];
    const feature = label(index, id);
    const counts = new Map<RepairAction, number>();
    let repaired: Geometry | undefined;
    try {
      repaired = geometry(raw.geometry, { add: (action) => counts.set(action, (counts.get(action) ?? 0) + 1) });
    } catch (err) {
      if (!(err instanceof Unrepairable)) throw err;
      problems.push({ feature, problem: 'invalid-geometry', message: err.message });
      return;
    }
    const dimensions = repaired && new Set(positionsOf(repaired).map((p) => p.length));
    if (dimensions && dimensions.size > 1) {
      const found = [...dimensions].sort().join(' and ');
      problems.push({ feature, problem: 'invalid-geometry', message: `positions mix ${found} coordinates` });
      return;
    }
    for (const [action, count] of counts) repairs.push({ feature, action, count });
    if (!repaired) {
      repairs.push({ feature, action: 'dropped-empty-geometry', count: 1 });
      return;
    }
    if (id === undefined || id === null || id === '')
      problems.push({ feature, problem: 'missing-id', message: `no value for id_property "${idProperty}"` });
    else if (typeof id !== 'string' && typeof id !== 'number')
      problems.push({
        feature,
        problem: 'missing-id',
        message: `id_property "${idProperty}" is not a string or number`,
      });
    else {
      const key = `${typeof id}:${id}`;
      const first = firstWithId.get(key);
      if (first === undefined) firstWithId.set(key, index);
      else
        problems.push({
          feature,
          problem: 'duplicate-id',
          message: `id_property "${idProperty}" value ${JSON.stringify(id)} is also the id of #${first}`,
        });
    }
    features.push({ geometry: repaired, properties });
  });
  if (problems.length > 0) throw new FeatureValidationError(problems);
  return { features, report: { received: input.length, stored: features.length, repairs } };
}
