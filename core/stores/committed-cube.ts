import { access } from 'node:fs/promises';
import { join } from 'node:path';
import h5wasm from 'h5wasm/node';
import { formatPeriod, type PeriodType } from '../periods/index.ts';
import { snapshotKeyReader } from './icechunk/repository.ts';
import { NETCDF_FILE } from './layout.ts';
import { directoryKeyReader, type KeyReader } from './zarr/group-writer.ts';

/**
 * What a committed version holds, read from its own files (coordinates), so that a sync appends after what the
 * store really has even when status bookkeeping disagrees with it.
 */
export interface CommittedCube {
  /** Every stored period, in the dataset-native form, in order. */
  periods: string[];
  lat: Float64Array;
  lon: Float64Array;
}

export class CommittedCubeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommittedCubeError';
  }
}

/** `days since 1970-01-01` or `hours since 1970-01-01T00:00:00`, as the writers store the time axis. */
function timeUnit(units: unknown): { step: number; epoch: number } {
  const m =
    typeof units === 'string' ? /^(hours|days) since (\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2})?)$/.exec(units) : null;
  if (!m) throw new CommittedCubeError(`unsupported time units ${JSON.stringify(units)}`);
  const epoch = Date.parse(m[2]!.length === 10 ? `${m[2]}T00:00:00Z` : `${m[2]}Z`);
  return { step: m[1] === 'hours' ? 3_600_000 : 86_400_000, epoch };
}

function periodsOf(type: PeriodType, values: BigInt64Array, units: unknown): string[] {
  const { step, epoch } = timeUnit(units);
  return Array.from(values, (v) => formatPeriod({ type, start: new Date(epoch + Number(v) * step) }));
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

interface StoredCoordinates {
  time: BigInt64Array;
  timeUnits: unknown;
  lat: Float64Array;
  lon: Float64Array;
}

interface ZarrArrayMeta {
  shape: number[];
  compressed: boolean;
  attributes: Record<string, unknown>;
}

/** The three coordinate arrays, each stored as one uncompressed chunk (see RasterCubeWriter). */
async function readZarrCoordinates(
  keys: KeyReader,
  meta: (name: string) => ZarrArrayMeta,
  chunkKey: string,
): Promise<StoredCoordinates> {
  const read = async (name: string) => {
    const array = meta(name);
    if (array.compressed) throw new CommittedCubeError(`coordinate ${name} is compressed; not a Stratus store`);
    const bytes = await keys(`${name}/${chunkKey}`);
    return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice(), array };
  };
  const [time, lat, lon] = await Promise.all(['time', 'lat', 'lon'].map(read));
  return {
    time: new BigInt64Array(time!.bytes.buffer, 0, time!.array.shape[0]),
    timeUnits: time!.array.attributes.units,
    lat: new Float64Array(lat!.bytes.buffer, 0, lat!.array.shape[0]),
    lon: new Float64Array(lon!.bytes.buffer, 0, lon!.array.shape[0]),
  };
}

const json = async (keys: KeyReader, key: string) => JSON.parse(Buffer.from(await keys(key)).toString('utf8'));

async function readZarrV2(keys: KeyReader): Promise<StoredCoordinates> {
  const { metadata } = (await json(keys, '.zmetadata')) as {
    metadata: Record<string, Record<string, unknown>>;
  };
  const meta = (name: string): ZarrArrayMeta => {
    const array = metadata[`${name}/.zarray`];
    if (!array) throw new CommittedCubeError(`the store has no ${name} array`);
    return {
      shape: array.shape as number[],
      compressed: array.compressor !== null,
      attributes: metadata[`${name}/.zattrs`] ?? {},
    };
  };
  return readZarrCoordinates(keys, meta, '0');
}

async function readZarrV3(keys: KeyReader): Promise<StoredCoordinates> {
  const root = (await json(keys, 'zarr.json')) as {
    consolidated_metadata?: { metadata: Record<string, Record<string, unknown>> };
  };
  const metadata = root.consolidated_metadata?.metadata ?? {};
  const meta = (name: string): ZarrArrayMeta => {
    const array = metadata[name];
    if (!array) throw new CommittedCubeError(`the store has no ${name} array`);
    return {
      shape: array.shape as number[],
      compressed: (array.codecs as { name: string }[]).some((c) => c.name !== 'bytes'),
      attributes: (array.attributes as Record<string, unknown> | undefined) ?? {},
    };
  };
  return readZarrCoordinates(keys, meta, 'c/0');
}

async function readNetcdf(dir: string): Promise<StoredCoordinates> {
  await h5wasm.ready;
  const file = new h5wasm.File(join(dir, NETCDF_FILE), 'r');
  try {
    const dataset = (name: string) => {
      const found = file.get(name);
      if (!(found instanceof h5wasm.Dataset)) throw new CommittedCubeError(`the file has no ${name} variable`);
      return found;
    };
    const time = dataset('time');
    return {
      time: BigInt64Array.from(time.value as BigInt64Array),
      timeUnits: time.attrs.units?.value,
      lat: Float64Array.from(dataset('lat').value as Float64Array),
      lon: Float64Array.from(dataset('lon').value as Float64Array),
    };
  } finally {
    file.close();
  }
}

/**
 * Reads the coordinates of a committed version stored as `format`: the version directory `dir`, or for Icechunk
 * the repository in `dir` at `snapshot`. A Zarr store's own metadata says its version (`.zmetadata` for v2,
 * `zarr.json` for v3), whatever the Dataset asks for now.
 */
export async function readCommittedCube(
  dir: string,
  format: string,
  periodType: PeriodType,
  snapshot?: string,
): Promise<CommittedCube> {
  let coordinates: StoredCoordinates;
  if (format === 'netcdf') coordinates = await readNetcdf(dir);
  else if (format === 'zarr')
    coordinates = await ((await exists(join(dir, '.zmetadata'))) ? readZarrV2 : readZarrV3)(directoryKeyReader(dir));
  else if (format === 'icechunk') {
    if (!snapshot) throw new CommittedCubeError('an Icechunk version names its snapshot');
    coordinates = await readZarrV3(await snapshotKeyReader(dir, snapshot)).catch((err: unknown) => {
      if (err instanceof CommittedCubeError) throw err;
      throw new CommittedCubeError(`snapshot ${snapshot} cannot be read: ${(err as Error).message}`);
    });
  } else throw new CommittedCubeError(`reading the extent of a ${format} store is not supported`);
  const { time, timeUnits, lat, lon } = coordinates;
  return { periods: periodsOf(periodType, time, timeUnits), lat, lon };
}
