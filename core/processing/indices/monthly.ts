/**
 * Monthly series per cell, what the standardized indices fit: a cube's values rearranged time-major (one row of
 * cells per time label), and the monthly totals of a daily or monthly series of rates (mm day-1).
 */
import type { ChunkArray } from '../cube/cube.ts';
import { invalidArgument } from '../errors.ts';
import { periodOrdinal } from '../processes/cube/periods.ts';

/** How a cube's C-ordered values map to (time, cell): `cells` is the product of the other dimensions' lengths. */
export interface TimeLayout {
  readonly shape: readonly number[];
  readonly axis: number;
  readonly times: number;
  readonly cells: number;
  /** Distance between consecutive time labels in the C-ordered values. */
  readonly stride: number;
}

export function timeLayout(shape: readonly number[], axis: number): TimeLayout {
  const times = shape[axis]!;
  const stride = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const cells = times === 0 ? 0 : shape.reduce((a, b) => a * b, 1) / times;
  return { shape, axis, times, cells, stride };
}

/** The cell of the C-ordered position `p`. */
export function cellOf({ times, stride }: TimeLayout, p: number): number {
  return Math.floor(p / (stride * times)) * stride + (p % stride);
}

/** `values` (C order) as rows of cells, one row per time label. */
export function timeMajor(values: ChunkArray, layout: TimeLayout): Float64Array {
  const out = new Float64Array(layout.times * layout.cells);
  for (let p = 0; p < values.length; p++) {
    const t = Math.floor(p / layout.stride) % layout.times;
    out[t * layout.cells + cellOf(layout, p)] = values[p]!;
  }
  return out;
}

/** Rows of cells (`rows` time labels) back in the C order of a cube shaped like `layout` with `rows` labels. */
export function cubeOrder(rows: Float64Array, layout: TimeLayout, count: number): Float64Array {
  const target = timeLayout(
    layout.shape.map((n, i) => (i === layout.axis ? count : n)),
    layout.axis,
  );
  const out = new Float64Array(rows.length);
  for (let p = 0; p < out.length; p++) {
    const t = Math.floor(p / target.stride) % target.times;
    out[p] = rows[t * target.cells + cellOf(target, p)]!;
  }
  return out;
}

const DAY_MS = 86_400_000;

/** Days in the month of ordinal `month` (year * 12 + month index). */
export function daysInMonth(month: number): number {
  // Day 0 of the next month is the last day of this one.
  return new Date(Date.UTC(Math.floor(month / 12), (month % 12) + 1, 0)).getUTCDate();
}

export interface MonthlySeries {
  /** Ordinal of the first month (year * 12 + month index); the months follow without gaps. */
  first: number;
  months: number;
  /** Totals (mm), row per month, nodata where a month is incomplete or holds nodata. */
  totals: Float64Array;
}

/**
 * Monthly totals of a series of rates per cell (time-major rows, mm day-1) at `instants`: a daily series sums the
 * days of each month (a month missing a day is nodata), a monthly one multiplies each month's rate by its days.
 */
export function monthlyTotals(
  rows: Float64Array,
  instants: readonly number[],
  cells: number,
  [process, parameter]: [string, string],
): MonthlySeries {
  const ordinals = instants.map((t) => periodOrdinal('month', t));
  const days = instants.map((t) => Math.floor(t / DAY_MS));
  if (new Set(days).size !== days.length)
    throw invalidArgument(process, parameter, 'the temporal labels must be distinct days or months');
  const first = ordinals.reduce((a, b) => Math.min(a, b), Infinity);
  const last = ordinals.reduce((a, b) => Math.max(a, b), -Infinity);
  const months = instants.length === 0 ? 0 : last - first + 1;
  const counts = new Int32Array(months);
  for (const o of ordinals) counts[o - first]!++;
  const daily = counts.some((c) => c > 1);
  const totals = new Float64Array(months * cells).fill(NaN);
  const seen = new Int32Array(months);
  ordinals.forEach((o, t) => {
    const m = o - first;
    const weight = daily ? 1 : daysInMonth(o);
    const row = totals.subarray(m * cells, (m + 1) * cells);
    if (seen[m] === 0) row.fill(0);
    seen[m]!++;
    for (let c = 0; c < cells; c++) row[c]! += rows[t * cells + c]! * weight;
  });
  if (daily)
    for (let m = 0; m < months; m++)
      if (counts[m]! < daysInMonth(first + m)) totals.subarray(m * cells, (m + 1) * cells).fill(NaN);
  return { first, months, totals };
}
