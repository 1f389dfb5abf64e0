import { RunError } from '../runs/errors.ts';
import type { HttpGetOptions } from './http.ts';

/** Reads one optional provider parameter of the expected type, or fails with a message naming it. */
export function parameter<T extends 'string' | 'number'>(
  provider: string,
  parameters: Record<string, unknown>,
  name: string,
  type: T,
): (T extends 'string' ? string : number) | undefined {
  const value = parameters[name];
  if (value === undefined) return undefined;
  if (typeof value !== type || (type === 'number' && !Number.isFinite(value)))
    throw new RunError('InvalidParameters', `${provider} provider: parameter ${name} must be a ${type}`);
  return value as T extends 'string' ? string : number;
}

/** The HTTP knobs every remote provider accepts: `timeoutMs`, `attempts`, `backoffMs`. */
export function httpOptions(
  provider: string,
  parameters: Record<string, unknown>,
  signal: AbortSignal,
): HttpGetOptions {
  return {
    signal,
    timeoutMs: parameter(provider, parameters, 'timeoutMs', 'number'),
    attempts: parameter(provider, parameters, 'attempts', 'number'),
    backoffMs: parameter(provider, parameters, 'backoffMs', 'number'),
  };
}

/** Copies `values` on `from`'s grid into a plane of `to`'s grid (same resolution, aligned), NaN elsewhere. */
export function placeOnGrid(
  to: { lon: Float64Array; lat: Float64Array; resolution: number },
  from: { lon: Float64Array; lat: Float64Array },
  values: Float32Array,
): Float32Array {
  const plane = new Float32Array(to.lat.length * to.lon.length).fill(Number.NaN);
  const dx = Math.round((from.lon[0]! - to.lon[0]!) / to.resolution);
  const dy = Math.round((to.lat[0]! - from.lat[0]!) / to.resolution);
  for (let j = 0; j < from.lat.length; j++) {
    const y = j + dy;
    if (y < 0 || y >= to.lat.length) continue;
    for (let i = 0; i < from.lon.length; i++) {
      const x = i + dx;
      if (x >= 0 && x < to.lon.length) plane[y * to.lon.length + x] = values[j * from.lon.length + i]!;
    }
  }
  return plane;
}
