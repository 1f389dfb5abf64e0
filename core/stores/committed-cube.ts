import { formatPeriod, type PeriodType } from '../periods/index.ts';
import { NetcdfVariableMissing, readNetcdfCoordinates } from './netcdf/read.ts';
import type { ReadableStore } from './store.ts';
import { openVersionStore } from './version-store.ts';
import { readZarrArray, readZarrGroup, ZarrFormatError } from './zarr/metadata.ts';
import { readVector } from './zarr/read.ts';

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
export function timeUnit(units: unknown): { step: number; epoch: number } {
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

interface StoredCoordinates {
  time: BigInt64Array;
  timeUnits: unknown;
  lat: Float64Array;
  lon: Float64Array;
}

/** The three coordinate arrays of a Zarr store (v2 or v3, as its own metadata says), as the writers store them. */
async function readZarrCoordinates(store: ReadableStore): Promise<StoredCoordinates> {
  const group = await readZarrGroup(store);
  if (!group) throw new CommittedCubeError('the version holds no Zarr group');
  const read = async (name: string, dataType: string) => {
    const array = await readZarrArray(store, group, name);
    if (!array) throw new CommittedCubeError(`the store has no ${name} array`);
    if (array.dataType !== dataType) throw new CommittedCubeError(`coordinate ${name} is not ${dataType}`);
    const values = await readVector(store, array);
    if (!values) throw new CommittedCubeError(`coordinate ${name} has chunks missing`);
    return { values, attributes: array.attributes };
  };
  const [time, lat, lon] = await Promise.all([read('time', 'int64'), read('lat', 'float64'), read('lon', 'float64')]);
  return {
    time: time.values as BigInt64Array,
    timeUnits: time.attributes.units,
    lat: lat.values as Float64Array,
    lon: lon.values as Float64Array,
  };
}

/** The reader's own refusals, as the one error callers of this module handle. */
function asCommittedCubeError(err: unknown): never {
  if (err instanceof ZarrFormatError || err instanceof NetcdfVariableMissing) throw new CommittedCubeError(err.message);
  throw err;
}

/**
 * Reads the coordinates of a committed version stored as `format`: the version directory `dir`, or for Icechunk
 * the repository in `dir` at `snapshot`. A Zarr store's own metadata says its version, whatever the Dataset asks
 * for now.
 */
export async function readCommittedCube(
  dir: string,
  format: string,
  periodType: PeriodType,
  snapshot?: string,
): Promise<CommittedCube> {
  let coordinates: StoredCoordinates;
  if (format === 'netcdf') coordinates = await readNetcdfCoordinates(dir).catch(asCommittedCubeError);
  else if (format === 'zarr')
    coordinates = await readZarrCoordinates(await openVersionStore(dir)).catch(asCommittedCubeError);
  else if (format === 'icechunk') {
    if (!snapshot) throw new CommittedCubeError('an Icechunk version names its snapshot');
    coordinates = await openVersionStore(dir, snapshot)
      .then(readZarrCoordinates)
      .catch((err: unknown) => {
        if (err instanceof CommittedCubeError) throw err;
        throw new CommittedCubeError(`snapshot ${snapshot} cannot be read: ${(err as Error).message}`);
      });
  } else throw new CommittedCubeError(`reading the extent of a ${format} store is not supported`);
  const { time, timeUnits, lat, lon } = coordinates;
  return { periods: periodsOf(periodType, time, timeUnits), lat, lon };
}
