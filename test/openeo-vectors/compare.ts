/**
 * Compares a result with a vector's `returns` by the README's rules: numbers to `delta` (1e-10 unless the
 * vector says otherwise), NaN equal to NaN, nodata as null, datetimes as instants, labeled arrays by keys and
 * values, data cubes by dimension order, names, types, labels (and axis and reference system where the vector
 * gives them) and every value, with the vector's nodata value matching the engine's NaN. Returns undefined when
 * equal, else where and how they differ.
 */
import { isCube, type DataCube } from '../../core/processing/cube/cube.ts';
import { materialize } from '../../core/processing/cube/read.ts';
import { parseInstant } from '../../core/processing/values/datetime.ts';
import { LabeledArray } from '../../core/processing/values/labeled-array.ts';
import { cubeJson, isNodataValue } from './codec.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => {
  if (typeof v === 'number') return String(v);
  if (v instanceof LabeledArray) return `labeled-array(${JSON.stringify(v.labels)})`;
  if (isCube(v)) return 'a data cube';
  return JSON.stringify(v);
};

function numbersEqual(e: number, a: number, delta: number): boolean {
  if (Number.isNaN(e) || Number.isNaN(a)) return Number.isNaN(e) && Number.isNaN(a);
  if (!Number.isFinite(e) || !Number.isFinite(a)) return e === a;
  return Math.abs(e - a) <= delta;
}

function labelsEqual(e: unknown, a: unknown, delta: number): boolean {
  if (typeof e === 'number' && typeof a === 'number') return numbersEqual(e, a, delta);
  if (typeof e === 'string' && typeof a === 'string') {
    if (e === a) return true;
    const [ie, ia] = [parseInstant(e), parseInstant(a)];
    return ie !== undefined && ie === ia;
  }
  return e === a;
}

export async function compare(
  expected: unknown,
  actual: unknown,
  delta: number,
  path = '$',
): Promise<string | undefined> {
  if (isObject(expected) && expected.type === 'nodata')
    return actual === null ? undefined : `${path}: expected nodata, got ${show(actual)}`;
  if (isObject(expected) && expected.type === 'datetime') {
    const e = parseInstant(expected.value as string);
    const a = typeof actual === 'string' ? parseInstant(actual) : undefined;
    return e !== undefined && e === a
      ? undefined
      : `${path}: expected ${expected.value as string}, got ${show(actual)}`;
  }
  if (isObject(expected) && expected.type === 'labeled-array') {
    if (!(actual instanceof LabeledArray)) return `${path}: expected a labeled array, got ${show(actual)}`;
    const data = expected.data as { key: unknown; value: unknown }[];
    if (data.length !== actual.length) return `${path}: expected ${data.length} elements, got ${actual.length}`;
    for (let i = 0; i < data.length; i++) {
      if (data[i]!.key !== actual.labels[i])
        return `${path}[${i}]: expected label ${show(data[i]!.key)}, got ${show(actual.labels[i])}`;
      const reason = await compare(data[i]!.value, actual.values[i], delta, `${path}[${i}]`);
      if (reason) return reason;
    }
    return undefined;
  }
  if (isObject(expected) && expected.type === 'datacube') {
    if (!isCube(actual)) return `${path}: expected a data cube, got ${show(actual)}`;
    return compareCube(expected, actual, delta, path);
  }
  if (typeof expected === 'number') {
    return typeof actual === 'number' && numbersEqual(expected, actual, delta)
      ? undefined
      : `${path}: expected ${show(expected)}, got ${show(actual)}`;
  }
  if (Array.isArray(expected)) {
    const items = actual instanceof LabeledArray ? actual.values : actual;
    if (!Array.isArray(items)) return `${path}: expected an array, got ${show(actual)}`;
    if (items.length !== expected.length) return `${path}: expected ${expected.length} elements, got ${items.length}`;
    for (let i = 0; i < expected.length; i++) {
      const reason = await compare(expected[i], items[i], delta, `${path}[${i}]`);
      if (reason) return reason;
    }
    return undefined;
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return `${path}: expected an object, got ${show(actual)}`;
    const keys = Object.keys(expected);
    if (keys.length !== Object.keys(actual).length || !keys.every((k) => k in actual))
      return `${path}: expected keys ${JSON.stringify(keys)}, got ${JSON.stringify(Object.keys(actual))}`;
    for (const k of keys) {
      const reason = await compare(expected[k], actual[k], delta, `${path}.${k}`);
      if (reason) return reason;
    }
    return undefined;
  }
  return expected === actual ? undefined : `${path}: expected ${show(expected)}, got ${show(actual)}`;
}

async function compareCube(expected: Json, actual: DataCube, delta: number, path: string): Promise<string | undefined> {
  const { dimensions, data, nodata } = cubeJson(expected);
  const names = actual.dimensions.map((d) => d.name);
  if (JSON.stringify(names) !== JSON.stringify(dimensions.map((d) => d.name)))
    return `${path}: expected dimensions ${JSON.stringify(dimensions.map((d) => d.name))}, got ${JSON.stringify(names)}`;
  for (const [i, e] of dimensions.entries()) {
    const a = actual.dimensions[i]!;
    if (e.type !== a.type) return `${path}: dimension ${e.name} has type ${a.type}, expected ${e.type}`;
    if (e.axis !== undefined && e.axis !== a.axis)
      return `${path}: dimension ${e.name} has axis ${a.axis}, expected ${e.axis}`;
    if (e.crs !== undefined && String(e.crs) !== String(a.crs))
      return `${path}: dimension ${e.name} has reference system ${a.crs}, expected ${e.crs}`;
    if (e.labels.length !== a.labels.length || e.labels.some((l, j) => !labelsEqual(l, a.labels[j], delta)))
      return `${path}: dimension ${e.name} has labels ${JSON.stringify(a.labels)}, expected ${JSON.stringify(e.labels)}`;
  }
  if (data === null) return undefined;
  const values = await materialize(actual, 1e8);
  const flat: unknown[] = [];
  const walk = (d: unknown) => (Array.isArray(d) ? d.forEach(walk) : flat.push(d));
  walk(data);
  if (flat.length !== values.length) return `${path}: expected ${flat.length} values, got ${values.length}`;
  for (let i = 0; i < flat.length; i++) {
    const e = flat[i];
    const a = values[i]!;
    const where = `${path} value #${i}`;
    if (e === null || isNodataValue(e, nodata) || (typeof e === 'number' && Number.isNaN(e))) {
      if (!Number.isNaN(a)) return `${where}: expected nodata, got ${a}`;
    } else if (typeof e === 'boolean') {
      if (actual.metadata.cellType !== 'boolean' || a !== (e ? 1 : 0))
        return `${where}: expected ${e}, got ${a} (${actual.metadata.cellType})`;
    } else if (typeof e !== 'number' || !numbersEqual(e, a, delta)) return `${where}: expected ${show(e)}, got ${a}`;
  }
  return undefined;
}
