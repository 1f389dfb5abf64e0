/**
 * The per-period reductions most indices are made of, over a block of daily values (`values[day * cells + cell]`,
 * NaN for missing) into `count` × `cells` results. Missing days are skipped; the missing-day rule is applied after.
 */
import type { Periods } from './calendar.ts';

/** Days whose value passes `test`. */
export function countDays(values: Float64Array, cells: number, periods: Periods, test: (v: number) => boolean) {
  const out = new Float64Array(periods.count * cells);
  forEachDay(values, cells, periods, (i, v) => {
    if (test(v)) out[i]!++;
  });
  return out;
}

/** The largest (`max`) or smallest value. */
export function extreme(values: Float64Array, cells: number, periods: Periods, max: boolean): Float64Array {
  const out = new Float64Array(periods.count * cells).fill(max ? -Infinity : Infinity);
  forEachDay(values, cells, periods, (i, v) => {
    if (max ? v > out[i]! : v < out[i]!) out[i] = v;
  });
  return finite(out);
}

/** The sum of the values that pass `test`, and how many did. */
export function sumWhere(values: Float64Array, cells: number, periods: Periods, test: (v: number) => boolean) {
  const sum = new Float64Array(periods.count * cells);
  const count = new Float64Array(periods.count * cells);
  forEachDay(values, cells, periods, (i, v) => {
    if (test(v)) {
      sum[i]! += v;
      count[i]!++;
    }
  });
  return { sum, count };
}

/** The mean of the values present (NaN without any). */
export function meanOf(values: Float64Array, cells: number, periods: Periods): Float64Array {
  const { sum, count } = sumWhere(values, cells, periods, (v) => !Number.isNaN(v));
  for (let i = 0; i < sum.length; i++) sum[i] = count[i]! > 0 ? sum[i]! / count[i]! : NaN;
  return sum;
}

/**
 * The largest sum of `length` consecutive days ending in the period (the window may begin in the period before);
 * a missing day adds nothing, as in climdex.
 */
export function largestRunningSum(values: Float64Array, cells: number, periods: Periods, length: number) {
  const out = new Float64Array(periods.count * cells).fill(-Infinity);
  const days = periods.ofDay.length;
  for (let d = 0; d < days; d++) {
    const p = periods.ofDay[d]!;
    if (p < 0) continue;
    for (let c = 0; c < cells; c++) {
      let sum = 0;
      for (let k = Math.max(0, d - length + 1); k <= d; k++) {
        const v = values[k * cells + c]!;
        if (!Number.isNaN(v)) sum += v;
      }
      if (sum > out[p * cells + c]!) out[p * cells + c] = sum;
    }
  }
  return finite(out);
}

function forEachDay(values: Float64Array, cells: number, periods: Periods, f: (i: number, v: number) => void) {
  for (let d = 0; d < periods.ofDay.length; d++) {
    const p = periods.ofDay[d]!;
    if (p < 0) continue;
    for (let c = 0; c < cells; c++) {
      const v = values[d * cells + c]!;
      if (!Number.isNaN(v)) f(p * cells + c, v);
    }
  }
}

/** Infinite placeholders of periods without a value become NaN. */
function finite(values: Float64Array): Float64Array {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i]!)) values[i] = NaN;
  return values;
}
