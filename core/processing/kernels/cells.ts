/**
 * Values inside data cube chunks: numbers, with NaN for nodata and 0/1 for booleans. These convert between a
 * cell and the scalar value a process sees (null for nodata, true/false for booleans).
 */
import { ProcessingError } from '../errors.ts';
import type { CellKind } from '../process.ts';
import { describeValue } from '../schema/match.ts';

export function fromCell(value: number, kind: CellKind): number | boolean | null {
  if (Number.isNaN(value)) return null;
  return kind === 'boolean' ? value !== 0 : value;
}

export function toCell(value: unknown): number {
  if (value === null) return NaN;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new ProcessingError(
    'ProcessParameterInvalid',
    `A process graph over data cube values returned ${describeValue(value)}; a data cube holds numbers and booleans only.`,
  );
}

/** The kind of a scalar value in a cell, or undefined when a cell cannot hold it. */
export function kindOf(value: unknown): CellKind | undefined {
  if (value === null) return 'nodata';
  if (typeof value === 'number') return Number.isNaN(value) ? 'nodata' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  return undefined;
}
