/**
 * Checks an argument against the JSON Schema of a process parameter, as openEO uses JSON Schema: draft-07
 * keywords plus `subtype`, over the engine's runtime values (data cubes, callbacks and labeled arrays are values
 * of type `object` or `array` with a subtype). A parameter's schema may be a list of alternatives; the value must
 * fit one. `number` includes NaN and the infinities, as the openEO test vectors assume. `dimensions` of data cube
 * schemas is left to the processes, which raise their own named exceptions (`DimensionNotAvailable`, ...).
 * Returns undefined when the value fits, else the reason it does not.
 */
import { parseDateTime, parseTimeOfDay } from '../values/datetime.ts';
import { isDataCube, isPlainObject, valueKind } from '../values/kinds.ts';
import { LabeledArray } from '../values/labeled-array.ts';

export type JsonSchema = Record<string, unknown>;
export type ParameterSchema = JsonSchema | JsonSchema[];

/** How deep the matcher follows nested arrays and objects; a value nested deeper is refused as too deep. */
const MAX_DEPTH = 64;

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof LabeledArray) return 'a labeled array';
  const kind = valueKind(value);
  if (kind === 'raster-cube') return 'a raster data cube';
  if (kind === 'vector-cube') return 'a vector data cube';
  if (kind === 'callback') return 'a process graph';
  if (typeof value === 'number') return Number.isInteger(value) ? `the integer ${value}` : `the number ${value}`;
  if (typeof value === 'string') return `a string`;
  return `a ${typeof value}`;
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'array':
      return Array.isArray(value) || value instanceof LabeledArray;
    case 'object':
      return isPlainObject(value) || valueKind(value) !== undefined;
    default:
      return false;
  }
}

/** Subtypes whose values are engine objects, not JSON: a plain object never fits them. */
function subtypeMismatch(subtype: string, value: unknown): string | undefined {
  switch (subtype) {
    case 'datacube':
      return isDataCube(value) ? undefined : 'expected a data cube';
    case 'raster-cube':
      return valueKind(value) === 'raster-cube' ? undefined : 'expected a raster data cube';
    case 'vector-cube':
      return valueKind(value) === 'vector-cube' ? undefined : 'expected a vector data cube';
    case 'process-graph':
      return valueKind(value) === 'callback' ? undefined : 'expected a process graph ({"process_graph": {...}})';
    case 'labeled-array':
      // Plain arrays are accepted too: a process that needs labels says so with its own exception.
      return undefined;
    case 'date-time':
    case 'date':
      return typeof value !== 'string' || parseDateTime(value)?.kind === (subtype === 'date' ? 'date' : 'date-time')
        ? undefined
        : `expected a ${subtype === 'date' ? 'date (YYYY-MM-DD)' : 'date-time (RFC 3339)'}`;
    case 'time':
      return typeof value !== 'string' || parseTimeOfDay(value) !== undefined
        ? undefined
        : 'expected a time (HH:MM:SS)';
    case 'geojson':
      return isPlainObject(value) && typeof value.type === 'string' ? undefined : 'expected a GeoJSON object';
    default:
      return undefined;
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

function checkFormat(format: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (format === 'date-time' && parseDateTime(value)?.kind !== 'date-time') return 'expected an RFC 3339 date-time';
  if (format === 'date' && parseDateTime(value)?.kind !== 'date') return 'expected a date (YYYY-MM-DD)';
  return undefined;
}

function matchOne(schema: JsonSchema, value: unknown, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return 'nested too deeply';
  const { type } = schema;
  if (type !== undefined) {
    const types = Array.isArray(type) ? (type as string[]) : [type as string];
    if (!types.some((t) => typeMatches(t, value))) return `expected ${types.join(' or ')}, got ${describeValue(value)}`;
  }
  if (typeof schema.subtype === 'string' && value !== null) {
    const reason = subtypeMismatch(schema.subtype, value);
    if (reason) return `${reason}, got ${describeValue(value)}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => deepEqual(e, value)))
    return `expected one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  if ('const' in schema && !deepEqual(schema.const, value)) return `expected ${JSON.stringify(schema.const)}`;
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && !(value >= schema.minimum)) return `must be at least ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && !(value <= schema.maximum)) return `must be at most ${schema.maximum}`;
    if (typeof schema.exclusiveMinimum === 'number' && !(value > schema.exclusiveMinimum))
      return `must be greater than ${schema.exclusiveMinimum}`;
    if (typeof schema.exclusiveMaximum === 'number' && !(value < schema.exclusiveMaximum))
      return `must be less than ${schema.exclusiveMaximum}`;
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength)
      return `must have at least ${schema.minLength} characters`;
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
      return `must have at most ${schema.maxLength} characters`;
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      return `must match ${schema.pattern}`;
    if (typeof schema.format === 'string') {
      const reason = checkFormat(schema.format, value);
      if (reason) return reason;
    }
  }
  if (Array.isArray(value) || value instanceof LabeledArray) {
    const items = value instanceof LabeledArray ? value.values : value;
    if (typeof schema.minItems === 'number' && items.length < schema.minItems)
      return `must have at least ${schema.minItems} elements`;
    if (typeof schema.maxItems === 'number' && items.length > schema.maxItems)
      return `must have at most ${schema.maxItems} elements`;
    if (schema.uniqueItems === true && items.length <= 10_000) {
      for (let i = 0; i < items.length; i++)
        for (let j = i + 1; j < items.length; j++)
          if (deepEqual(items[i], items[j])) return 'must not contain duplicate elements';
    }
    if (isPlainObject(schema.items)) {
      for (let i = 0; i < items.length; i++) {
        const reason = matchOne(schema.items, items[i], depth + 1);
        if (reason) return `element ${i}: ${reason}`;
      }
    }
  }
  if (isPlainObject(value)) {
    if (Array.isArray(schema.required)) {
      for (const key of schema.required as string[]) if (!(key in value)) return `property '${key}' is required`;
    }
    const properties = isPlainObject(schema.properties) ? schema.properties : {};
    for (const [key, sub] of Object.entries(properties)) {
      if (key in value && isPlainObject(sub)) {
        const reason = matchOne(sub, value[key], depth + 1);
        if (reason) return `property '${key}': ${reason}`;
      }
    }
    if (schema.additionalProperties === false) {
      const extra = Object.keys(value).find((key) => !(key in properties));
      if (extra !== undefined) return `property '${extra}' is not allowed`;
    } else if (isPlainObject(schema.additionalProperties)) {
      for (const [key, sub] of Object.entries(value)) {
        if (key in properties) continue;
        const reason = matchOne(schema.additionalProperties, sub, depth + 1);
        if (reason) return `property '${key}': ${reason}`;
      }
    }
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const alternatives = schema[keyword];
    if (Array.isArray(alternatives) && alternatives.length > 0) {
      const reasons = alternatives.map((alt) => matchOne(alt as JsonSchema, value, depth + 1));
      if (reasons.every((r) => r !== undefined)) return reasons[0];
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const sub of schema.allOf) {
      const reason = matchOne(sub as JsonSchema, value, depth + 1);
      if (reason) return reason;
    }
  }
  return undefined;
}

/** Undefined when `value` fits `schema` (or one of its alternatives), else why not. */
export function mismatch(schema: ParameterSchema, value: unknown): string | undefined {
  if (Array.isArray(schema)) {
    if (schema.length === 0) return undefined;
    const reasons = schema.map((s) => matchOne(s, value, 0));
    if (reasons.some((r) => r === undefined)) return undefined;
    // The alternative with the same JSON type explains best; else the first one.
    const typed = schema.findIndex((s) => s.type === undefined || matchOne({ type: s.type }, value, 0) === undefined);
    return reasons[typed >= 0 ? typed : 0];
  }
  return matchOne(schema, value, 0);
}

/**
 * The callback parameters a `process-graph` schema declares (first alternative that declares some); with
 * `nested`, those of a process graph inside an object argument (`load_collection`'s property filters, whose
 * schema gives them as `additionalProperties`).
 */
export function callbackParameters(
  schema: ParameterSchema,
  nested = false,
): { name: string; schema?: ParameterSchema }[] | undefined {
  for (const alternative of Array.isArray(schema) ? schema : [schema]) {
    const s = nested ? alternative.additionalProperties : alternative;
    if (isPlainObject(s) && s.subtype === 'process-graph')
      return (Array.isArray(s.parameters) ? s.parameters : []) as { name: string; schema?: ParameterSchema }[];
  }
  return undefined;
}

/** True when the schema (or an alternative) accepts `null`, so that a nodata element may stand for it. */
export function acceptsNull(schema: ParameterSchema): boolean {
  return mismatch(schema, null) === undefined;
}
