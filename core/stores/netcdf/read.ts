import { join } from 'node:path';
import h5wasm, { type Dataset } from 'h5wasm/node';
import { NETCDF_FILE } from '../layout.ts';

/** Reading the NetCDF-4 file of a version directory: what a sync needs of it, the coordinates and the planes. */

/** A variable the file does not hold; the message names it. */
export class NetcdfVariableMissing extends Error {
  constructor(name: string) {
    super(`the file has no ${name} variable`);
    this.name = 'NetcdfVariableMissing';
  }
}

/** Runs `read` on the version's file open read-only, with a lookup that refuses a missing variable. */
async function withFile<T>(dir: string, read: (variable: (name: string) => Dataset) => T): Promise<T> {
  await h5wasm.ready;
  const file = new h5wasm.File(join(dir, NETCDF_FILE), 'r');
  try {
    return read((name) => {
      const found = file.get(name);
      if (!(found instanceof h5wasm.Dataset)) throw new NetcdfVariableMissing(name);
      return found;
    });
  } finally {
    file.close();
  }
}

export interface NetcdfCoordinates {
  time: BigInt64Array;
  /** The `units` attribute of `time` (`days since 1970-01-01`), as stored. */
  timeUnits: unknown;
  lat: Float64Array;
  lon: Float64Array;
}

export function readNetcdfCoordinates(dir: string): Promise<NetcdfCoordinates> {
  return withFile(dir, (variable) => {
    const time = variable('time');
    return {
      time: BigInt64Array.from(time.value as BigInt64Array),
      timeUnits: time.attrs.units?.value,
      lat: Float64Array.from(variable('lat').value as Float64Array),
      lon: Float64Array.from(variable('lon').value as Float64Array),
    };
  });
}

/** The planes of the data variable, one per period, in order. */
export function readNetcdfPlanes(dir: string, variable: string): Promise<Float32Array[]> {
  return withFile(dir, (lookup) => {
    const data = lookup(variable);
    const [nt, ny, nx] = data.shape as [number, number, number];
    const values = data.value as Float32Array;
    return Array.from({ length: nt }, (_, t) => values.slice(t * ny * nx, (t + 1) * ny * nx));
  });
}
