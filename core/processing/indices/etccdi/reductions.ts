/**
 * The per-period reductions most indices are made of, over a block of daily values (`values[day * cells + cell]`,
 * NaN for missing) into `count` × `cells` results. Missing days are skipped (a comparison with NaN is false); the
 * missing-day rule is applied after. Each is one loop over days and cells with its test written in it: a test
 * passed as a function would be a call per value.
 */
import type { Periods } from './calendar.ts';

/** A day's test of its value against a limit: `value < limit`, `value > limit` or `value >= limit`. */
export interface DayCondition {
  readonly test: '<' | '>' | '>=';
  readonly limit: number;
}

/** Days whose value meets `condition`. */
export function countDays(values: Float64Array, cells: number, periods: Periods, condition: DayCondition) {
  const out = new Float64Array(periods.count * cells);
  const { test, limit } = condition;
  forEachRow(periods, cells, (row, at) => {
    if (test === '<') {
      for (let c = 0; c < cells; c++) if (values[row + c]! < limit) out[at + c]!++;
    } else if (test === '>') {
      for (let c = 0; c < cells; c++) if (values[row + c]! > limit) out[at + c]!++;
    } else for (let c = 0; c < cells; c++) if (values[row + c]! >= limit) out[at + c]!++;
  });
  return out;
}

/** The largest (`max`) or smallest value. */
export function extreme(values: Float64Array, cells: number, periods: Periods, max: boolean): Float64Array {
  const out = new Float64Array(periods.count * cells).fill(max ? -Infinity : Infinity);
  forEachRow(periods, cells, (row, at) => {
    if (max)
      for (let c = 0; c < cells; c++) {
        const v = values[row + c]!;
        if (v > out[at + c]!) out[at + c] = v;
      }
    else
      for (let c = 0; c < cells; c++) {
        const v = values[row + c]!;
        if (v < out[at + c]!) out[at + c] = v;
      }
  });
  return finite(out);
}

/** The sum of the values of at least `least` (-Infinity: every value present), and how many there were. */
export function sumWhere(values: Float64Array, cells: number, periods: Periods, least: number) {
  const sum = new Float64Array(periods.count * cells);
  const count = new Float64Array(periods.count * cells);
  forEachRow(periods, cells, (row, at) => {
    for (let c = 0; c < cells; c++) {
      const v = values[row + c]!;
      if (v >= least) {
        sum[at + c]! += v;
        count[at + c]!++;
      }
    }
  });
  return { sum, count };
}

/** The mean of `high - low` over the days both are present (NaN without any). */
export function meanDifference(high: Float64Array, low: Float64Array, cells: number, periods: Periods) {
  const sum = new Float64Array(periods.count * cells);
  const count = new Float64Array(periods.count * cells);
  forEachRow(periods, cells, (row, at) => {
    for (let c = 0; c < cells; c++) {
      const v = high[row + c]! - low[row + c]!;
      if (v === v) {
        sum[at + c]! += v;
        count[at + c]!++;
      }
    }
  });
  for (let i = 0; i < sum.length; i++) sum[i] = count[i]! > 0 ? sum[i]! / count[i]! : NaN;
  return sum;
}

/**
 * The largest sum of `length` consecutive days ending in the period (the window may begin in the period before);
 * a missing day adds nothing, as in climdex. `before`: the `length - 1` days before the first (the end of the run
 * of years before), absent before the series.
 */
export function largestRunningSum(
  values: Float64Array,
  cells: number,
  periods: Periods,
  length: number,
  before: Float64Array | undefined,
) {
  const out = new Float64Array(periods.count * cells).fill(-Infinity);
  const days = periods.ofDay.length;
  for (let d = 0; d < days; d++) {
    const p = periods.ofDay[d]!;
    if (p < 0) continue;
    for (let c = 0; c < cells; c++) {
      let sum = 0;
      for (let k = d - length + 1; k <= d; k++) {
        const v = k >= 0 ? values[k * cells + c]! : before ? before[(k + length - 1) * cells + c]! : NaN;
        if (!Number.isNaN(v)) sum += v;
      }
      if (sum > out[p * cells + c]!) out[p * cells + c] = sum;
    }
  }
  return finite(out);
}

/** Calls `f` once a day of a period, with the offsets of its row of values and of its period's results. */
function forEachRow(periods: Periods, cells: number, f: (row: number, at: number) => void) {
  for (let d = 0; d < periods.ofDay.length; d++) {
    const p = periods.ofDay[d]!;
    if (p >= 0) f(d * cells, p * cells);
  }
}

/** Infinite placeholders of periods without a value become NaN. */
function finite(values: Float64Array): Float64Array {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i]!)) values[i] = NaN;
  return values;
}
