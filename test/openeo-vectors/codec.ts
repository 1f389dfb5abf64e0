/**
 * The encodings of the test vectors' README mapped to the engine's values: `{"type": "nodata"}` is null,
 * `{"type": "datetime"}` a string, `{"type": "labeled-array"}` a LabeledArray, `{"type": "datacube"}` an
 * in-memory DataCube whose nodata value (`nodata`, NaN or a number) becomes NaN and whose booleans become 1/0.
 * Dimensions come either as an object with `order`, or as an array of objects with `name`.
 */
import { memoryCube } from '../../core/processing/cube/memory.ts';
import type { DataCube } from '../../core/processing/cube/cube.ts';
import type { Dimension, DimensionType } from '../../core/processing/cube/dimension.ts';
import { LabeledArray, type Label } from '../../core/processing/values/labeled-array.ts';

type Json = Record<string, unknown>;

const isTyped = (value: unknown, type: string): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && (value as Json).type === type;

export interface CubeJson {
  dimensions: Dimension[];
  /** Nested data (may be null: values irrelevant), as written. */
  data: unknown;
  nodata: number[];
}

/** The dimensions, in order, and the data of a `datacube` encoding. */
export function cubeJson(value: Json): CubeJson {
  const dims = value.dimensions;
  let entries: [string, Json][];
  if (Array.isArray(dims)) entries = (dims as Json[]).map((d) => [d.name as string, d]);
  else {
    const order = (value.order as string[] | undefined) ?? Object.keys(dims as Json);
    entries = order.map((name) => [name, (dims as Json)[name] as Json]);
  }
  const dimensions = entries.map(([name, d]): Dimension => {
    const crs = d.reference_system as string | number | undefined;
    return {
      name,
      type: d.type as DimensionType,
      labels: (d.values as Label[] | undefined) ?? [],
      ...(d.axis === undefined ? {} : { axis: d.axis as Dimension['axis'] }),
      ...(crs === undefined ? {} : { crs }),
    };
  });
  const nodata = value.nodata === undefined ? [] : Array.isArray(value.nodata) ? value.nodata : [value.nodata];
  return { dimensions, data: value.data ?? null, nodata: nodata as number[] };
}

/** True when `x` is one of the cube's nodata values (NaN matching NaN). */
export function isNodataValue(x: unknown, nodata: readonly number[]): boolean {
  return nodata.some((n) => (Number.isNaN(n) ? typeof x === 'number' && Number.isNaN(x) : x === n));
}

function flatten(data: unknown, out: unknown[]): void {
  if (Array.isArray(data)) for (const d of data) flatten(d, out);
  else out.push(data);
}

export function decodeCube(value: Json): DataCube {
  const { dimensions, data, nodata } = cubeJson(value);
  const cells = dimensions.length === 0 ? 0 : dimensions.reduce((n, d) => n * d.labels.length, 1);
  const flat: unknown[] = [];
  if (data !== null) flatten(data, flat);
  const values = new Float64Array(cells).fill(NaN);
  let booleans = false;
  for (let i = 0; i < Math.min(cells, flat.length); i++) {
    const x = flat[i];
    if (typeof x === 'boolean') {
      booleans = true;
      values[i] = x ? 1 : 0;
    } else if (typeof x === 'number' && !isNodataValue(x, nodata)) values[i] = x;
  }
  // Small chunks on purpose: the vectors then exercise reads across chunk edges.
  return memoryCube({
    dimensions,
    data: values,
    cellType: booleans ? 'boolean' : 'number',
    chunkShape: dimensions.map((d) => Math.max(1, Math.ceil(d.labels.length / 2))),
  });
}

/** A vector argument as the engine takes it. */
export function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (typeof value !== 'object' || value === null) return value;
  if (isTyped(value, 'nodata')) return null;
  if (isTyped(value, 'datetime')) return value.value;
  if (isTyped(value, 'labeled-array')) {
    const data = value.data as { key: Label; value: unknown }[];
    return new LabeledArray(
      data.map((d) => d.key),
      data.map((d) => decode(d.value)),
    );
  }
  if (isTyped(value, 'datacube')) return decodeCube(value);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decode(v)]));
}
