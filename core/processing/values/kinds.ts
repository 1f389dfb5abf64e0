/**
 * The engine's non-JSON values brand themselves with `VALUE_KIND`, so that modules can tell a data cube from a
 * callback or a plain object without importing each other's classes (the schema matcher sits below all of them).
 */
export const VALUE_KIND: unique symbol = Symbol.for('stratus.processing.value-kind');

export type ValueKind = 'raster-cube' | 'vector-cube' | 'callback';

export function valueKind(value: unknown): ValueKind | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as { [VALUE_KIND]?: ValueKind })[VALUE_KIND];
}

/** A data cube of either kind (what the subtype `datacube` accepts). */
export function isDataCube(value: unknown): boolean {
  const kind = valueKind(value);
  return kind === 'raster-cube' || kind === 'vector-cube';
}

/** A plain JSON object: not an array, not null, not one of the engine's values. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
