import type { ReadableStore } from '../store.ts';

/**
 * The one reader of Zarr metadata, v2 (`.zmetadata`, or `.zgroup`, `.zarray`, `.zattrs`) and v3 (`zarr.json`,
 * with `consolidated_metadata` as zarr-python 3 writes it). Both are described in v3's terms, so callers never
 * parse either format themselves. It reads what the store says and checks only what it needs to say it; what a
 * caller cannot handle (a codec, a data type) it refuses itself.
 */

/** Metadata that is not Zarr, or Zarr this reader cannot describe. */
export class ZarrFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZarrFormatError';
  }
}

/** A codec in Zarr v3's form. A v2 array's byte order, filters and compressor are mapped to these. */
export interface ZarrCodec {
  name: string;
  configuration: Record<string, unknown>;
}

export interface ZarrArray {
  /** Path of the array in its group (`value`, `lat`). */
  name: string;
  shape: number[];
  chunks: number[];
  /** v3's name of the data type (`float32`, `int64`); a v2 dtype (`<f4`) is given by its v3 name. */
  dataType: string;
  /** The value of cells no chunk holds: a number (NaN included), or null for none. */
  fillValue: number | null;
  /** `_ARRAY_DIMENSIONS` (v2) or `dimension_names` (v3); empty when the store names none. */
  dimensions: string[];
  /** User attributes (v2's `_ARRAY_DIMENSIONS` is `dimensions`, not an attribute). */
  attributes: Record<string, unknown>;
  /** The codec pipeline, first applied first when encoding: `bytes` (byte order), then compressors. */
  codecs: ZarrCodec[];
  /** The key of chunk `index` (one number per dimension; none for a scalar), relative to the group. */
  chunkKey(index: number[]): string;
}

export interface ZarrGroup {
  zarrFormat: 2 | 3;
  /** Whether the group holds consolidated metadata: only then does `arrays` list every array. */
  consolidated: boolean;
  attributes: Record<string, unknown>;
  /** The arrays of the consolidated metadata, by path; without it, `readZarrArray` opens one by name. */
  arrays: Record<string, ZarrArray>;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isIntegers = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((n) => Number.isInteger(n) && n >= 0);

async function readJson(store: ReadableStore, key: string): Promise<Json | undefined> {
  const bytes = await store.get(key);
  if (!bytes) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ZarrFormatError(`${key} is not JSON`);
  }
  if (!isObject(parsed)) throw new ZarrFormatError(`${key} is not a JSON object`);
  return parsed;
}

function fillValueOf(name: string, value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return Number(value);
  if (value === 'NaN') return Number.NaN;
  if (value === 'Infinity') return Number.POSITIVE_INFINITY;
  if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
  throw new ZarrFormatError(`array ${name}: fill value ${JSON.stringify(value)} is not supported`);
}

function checkedShape(name: string, shape: unknown, chunks: unknown): { shape: number[]; chunks: number[] } {
  if (!isIntegers(shape) || !isIntegers(chunks) || shape.length !== chunks.length || chunks.includes(0))
    throw new ZarrFormatError(`array ${name}: shape and chunks are not lists of sizes of the same length`);
  return { shape, chunks };
}

/** Chunk keys: v3's default encoding (`c/0/1/2`, a scalar's `c`), or v2's (`0.1.2`, a scalar's `0`). */
export function chunkKeys(name: string, v2: boolean, separator: string): ZarrArray['chunkKey'] {
  return (index) =>
    `${name}/${v2 ? (index.length === 0 ? '0' : index.join(separator)) : ['c', ...index].join(separator)}`;
}

/** v2 dtype kinds (`<f4`: little-endian, float, 4 bytes) by their v3 names. */
const V2_KINDS: Record<string, string> = { f: 'float', i: 'int', u: 'uint', b: 'bool' };

function v2Array(name: string, meta: Json, attributes: Json | undefined): ZarrArray {
  const dtype = /^([<>|])([fiub])(\d+)$/.exec(String(meta.dtype));
  if (!dtype) throw new ZarrFormatError(`array ${name}: dtype ${JSON.stringify(meta.dtype)} is not supported`);
  const [, order, kind, size] = dtype as unknown as [string, string, string, string];
  const dataType = kind === 'b' ? 'bool' : `${V2_KINDS[kind]}${Number(size) * 8}`;
  const codecs: ZarrCodec[] = [
    ...(meta.order === 'F' ? [{ name: 'transpose', configuration: { order: 'F' } }] : []),
    { name: 'bytes', configuration: order === '|' ? {} : { endian: order === '<' ? 'little' : 'big' } },
  ];
  for (const codec of [...((meta.filters as unknown[] | null) ?? []), meta.compressor ?? null]) {
    if (codec === null) continue;
    if (!isObject(codec)) throw new ZarrFormatError(`array ${name}: a codec is not an object`);
    const { id, ...configuration } = codec;
    codecs.push({ name: String(id), configuration });
  }
  const { _ARRAY_DIMENSIONS: dimensions, ...rest } = attributes ?? {};
  return {
    name,
    ...checkedShape(name, meta.shape, meta.chunks),
    dataType,
    fillValue: fillValueOf(name, meta.fill_value),
    dimensions: Array.isArray(dimensions) ? dimensions.map(String) : [],
    attributes: rest,
    codecs,
    chunkKey: chunkKeys(name, true, meta.dimension_separator === '/' ? '/' : '.'),
  };
}

function v3Array(name: string, meta: Json): ZarrArray {
  const grid = meta.chunk_grid as Json | undefined;
  if (grid?.name !== 'regular' || !isObject(grid.configuration))
    throw new ZarrFormatError(`array ${name}: only regular chunk grids are supported`);
  const encoding = (meta.chunk_key_encoding as Json | undefined) ?? { name: 'default' };
  const v2Keys = encoding.name === 'v2';
  const separator =
    ((encoding.configuration as Json | undefined)?.separator as string | undefined) ?? (v2Keys ? '.' : '/');
  const codecs = Array.isArray(meta.codecs) ? meta.codecs : [];
  return {
    name,
    ...checkedShape(name, meta.shape, grid.configuration.chunk_shape),
    dataType: String(meta.data_type),
    fillValue: fillValueOf(name, meta.fill_value),
    dimensions: Array.isArray(meta.dimension_names) ? meta.dimension_names.map((d) => String(d ?? '')) : [],
    attributes: (meta.attributes as Json | undefined) ?? {},
    codecs: codecs.map((c: Json) => ({ name: String(c.name), configuration: (c.configuration as Json) ?? {} })),
    chunkKey: chunkKeys(name, v2Keys, separator),
  };
}

/**
 * The group at the root of `store`, or undefined when the store holds none: `zarr.json` for v3, else `.zmetadata`
 * (consolidated) or `.zgroup` for v2. Which format a store is in is read from the store, never assumed.
 */
export async function readZarrGroup(store: ReadableStore): Promise<ZarrGroup | undefined> {
  const root = await readJson(store, 'zarr.json');
  if (root) {
    if (root.zarr_format !== 3 || root.node_type !== 'group') throw new ZarrFormatError('zarr.json is no v3 group');
    const consolidated = (root.consolidated_metadata as Json | null | undefined)?.metadata;
    const arrays: Record<string, ZarrArray> = {};
    if (isObject(consolidated))
      for (const [path, node] of Object.entries(consolidated))
        if (isObject(node) && node.node_type === 'array') arrays[path] = v3Array(path, node);
    return {
      zarrFormat: 3,
      consolidated: isObject(consolidated),
      attributes: (root.attributes as Json | undefined) ?? {},
      arrays,
    };
  }
  const zmetadata = await readJson(store, '.zmetadata');
  if (zmetadata) {
    const metadata = zmetadata.metadata;
    if (!isObject(metadata)) throw new ZarrFormatError('.zmetadata has no metadata');
    const arrays: Record<string, ZarrArray> = {};
    for (const [key, meta] of Object.entries(metadata)) {
      if (!key.endsWith('/.zarray') || !isObject(meta)) continue;
      const path = key.slice(0, -'/.zarray'.length);
      arrays[path] = v2Array(path, meta, metadata[`${path}/.zattrs`] as Json | undefined);
    }
    return { zarrFormat: 2, consolidated: true, attributes: (metadata['.zattrs'] as Json | undefined) ?? {}, arrays };
  }
  if (!(await readJson(store, '.zgroup'))) return undefined;
  return { zarrFormat: 2, consolidated: false, attributes: (await readJson(store, '.zattrs')) ?? {}, arrays: {} };
}

/** The array `name` of `group`: from its consolidated metadata, else from the array's own metadata keys. */
export async function readZarrArray(
  store: ReadableStore,
  group: ZarrGroup,
  name: string,
): Promise<ZarrArray | undefined> {
  if (group.arrays[name]) return group.arrays[name];
  if (group.zarrFormat === 3) {
    const meta = await readJson(store, `${name}/zarr.json`);
    return meta?.node_type === 'array' ? v3Array(name, meta) : undefined;
  }
  const meta = await readJson(store, `${name}/.zarray`);
  return meta && v2Array(name, meta, await readJson(store, `${name}/.zattrs`));
}

/**
 * The coordinate arrays of `array`'s dimensions, by dimension: 1-D arrays of the group named after the dimension
 * they label (CF's coordinate variables, as xarray reads them).
 */
export function coordinatesOf(group: ZarrGroup, array: ZarrArray): Record<string, ZarrArray> {
  const coordinates: Record<string, ZarrArray> = {};
  for (const dimension of array.dimensions) {
    const coordinate = group.arrays[dimension];
    if (coordinate && coordinate.dimensions.length === 1 && coordinate.dimensions[0] === dimension)
      coordinates[dimension] = coordinate;
  }
  return coordinates;
}
