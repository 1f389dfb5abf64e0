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
