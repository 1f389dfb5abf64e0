/**
 * The per-period reductions most indices are made of, over daily values (a block, `values[day * cells + cell]`, a
 * day's row as an input is read, or a time chunk as decoded; NaN for missing) into `count` × `cells` results.
 * Missing days are skipped (a comparison with NaN is false); the missing-day rule is applied after. Each is one
 * loop over days and cells with its test written in it: a test passed as a function would be a call per value.
 */
import type { ChunkArray } from '../../cube/cube.ts';
import { Float32Extremes } from '../../kernels/wasm/extremes.ts';
import type { Periods } from './calendar.ts';

/** A day's test of its value against a limit: `value < limit`, `value > limit` or `value >= limit`. */
export interface DayCondition {
  readonly test: '<' | '>' | '>=';
  readonly limit: number;
}

/**
 * A reduction of days into a value per period and cell, fed one day at a time from where its values lie: a block
 * (`reduceBlock`), a day's row as it is read, or a day of a decoded time chunk as stored (float32 or float64).
 */
export interface PeriodReduction {
  /**
   * Day `t` of `values`, `length` days a row: cell `p * post + q`'s value is `values[(p * length + t) * post + q]`
   * (a block, or a day's row: one row of `post` cells; a time chunk as decoded: `pre` rows), into period `period`'s
   * results. Marks with 1s in `gaps` the cells whose value is NaN (missing); whether there were any. A NaN fails
   * every test of a reduction, so it is looked for only where a value failed one: a day is one pass over its values.
   */
  day(
    values: ChunkArray,
    length: number,
    t: number,
    pre: number,
    post: number,
    period: number,
    gaps: Uint8Array,
  ): boolean;
  result(): Float64Array;
}

/** Feeds every day of a period in `values` (a block, `values[day * cells + cell]`) to `reduction`. */
export function reduceBlock<R extends PeriodReduction>(
  reduction: R,
  values: Float64Array,
  cells: number,
  periods: Periods,
) {
  // A block's missing values are tallied apart (missing.ts): the marks are not read.
  const gaps = new Uint8Array(cells);
  for (let d = 0; d < periods.ofDay.length; d++) {
    const p = periods.ofDay[d]!;
    if (p >= 0) reduction.day(values, 1, d, 1, cells, p, gaps);
  }
  return reduction;
}

/** A reduction into one result per period and cell, each starting at `initial`. */
abstract class PerPeriodAndCell {
  protected readonly cells: number;
  protected readonly out: Float64Array;

  constructor(cells: number, periods: Periods, initial: number) {
    this.cells = cells;
    this.out = new Float64Array(periods.count * cells).fill(initial);
  }
}

/** Days whose value meets `condition`. */
export class DayCount extends PerPeriodAndCell implements PeriodReduction {
  private readonly condition: DayCondition;

  constructor(cells: number, periods: Periods, condition: DayCondition) {
    super(cells, periods, 0);
    this.condition = condition;
  }

  day(values: ChunkArray, length: number, t: number, pre: number, post: number, period: number, gaps: Uint8Array) {
    const { out } = this;
    const { test, limit } = this.condition;
    let gapped = false;
    for (let p = 0; p < pre; p++) {
      const from = (p * length + t) * post;
      const at = period * this.cells + p * post;
      const mark = p * post;
      // One loop a test: a test chosen per value would be a branch on it per value.
      if (test === '<') {
        for (let q = 0; q < post; q++) {
          const v = values[from + q]!;
          if (v < limit) out[at + q]!++;
          else if (v !== v) {
            gaps[mark + q] = 1;
            gapped = true;
          }
        }
      } else if (test === '>') {
        for (let q = 0; q < post; q++) {
          const v = values[from + q]!;
          if (v > limit) out[at + q]!++;
          else if (v !== v) {
            gaps[mark + q] = 1;
            gapped = true;
          }
        }
      } else
        for (let q = 0; q < post; q++) {
          const v = values[from + q]!;
          if (v >= limit) out[at + q]!++;
          else if (v !== v) {
            gaps[mark + q] = 1;
            gapped = true;
          }
        }
    }
    return gapped;
  }

  result() {
    return this.out;
  }
}

/**
 * The largest (`max`) or smallest value. Fed values as stored, before a conversion that increases (scale > 0), it
 * gives the stored extreme, whose conversion is the converted values' extreme: the caller converts the result once.
 * Float32 days (stored values) are folded by a SIMD kernel into float32 accumulators, the others here; the result
 * is the extreme of both.
 */
export class Extreme extends PerPeriodAndCell implements PeriodReduction {
  private readonly max: boolean;
  private float32: Float32Extremes | undefined;

  constructor(cells: number, periods: Periods, max: boolean) {
    super(cells, periods, max ? -Infinity : Infinity);
    this.max = max;
  }

  day(values: ChunkArray, length: number, t: number, pre: number, post: number, period: number, gaps: Uint8Array) {
    const { out } = this;
    let gapped = false;
    for (let p = 0; p < pre; p++) {
      const from = (p * length + t) * post;
      const at = period * this.cells + p * post;
      const mark = p * post;
      if (values instanceof Float32Array) {
        this.float32 ??= new Float32Extremes(out.length, this.max);
        if (!this.float32.day(values, from, post, at)) continue;
        gapped = true;
        for (let q = 0; q < post; q++) if (values[from + q] !== values[from + q]) gaps[mark + q] = 1;
      } else if (this.max)
        for (let q = 0; q < post; q++) {
          const v = values[from + q]!;
          if (v > out[at + q]!) out[at + q] = v;
          else if (v !== v) {
            gaps[mark + q] = 1;
            gapped = true;
          }
        }
      else
        for (let q = 0; q < post; q++) {
          const v = values[from + q]!;
          if (v < out[at + q]!) out[at + q] = v;
          else if (v !== v) {
            gaps[mark + q] = 1;
            gapped = true;
          }
        }
    }
    return gapped;
  }

  result() {
    const { out, max } = this;
    const float32 = this.float32?.values() ?? [];
    for (let i = 0; i < float32.length; i++) {
      const v = float32[i]!;
      if (max ? v > out[i]! : v < out[i]!) out[i] = v;
    }
    return finite(out);
  }
}

/**
 * The sum of the values of at least `least` (-Infinity: every value present), and how many there were; its result
 * is `finish(sum, count)`, the sum by default.
 */
export class SumWhere extends PerPeriodAndCell implements PeriodReduction {
  readonly count: Float64Array;
  private readonly least: number;
  private readonly finish: (sum: Float64Array, count: Float64Array) => Float64Array;

  constructor(
    cells: number,
    periods: Periods,
    least: number,
    finish: (sum: Float64Array, count: Float64Array) => Float64Array = (sum) => sum,
  ) {
    super(cells, periods, 0);
    this.least = least;
    this.finish = finish;
    this.count = new Float64Array(periods.count * cells);
  }

  get sum(): Float64Array {
    return this.out;
  }

  day(values: ChunkArray, length: number, t: number, pre: number, post: number, period: number, gaps: Uint8Array) {
    const { sum, count, least } = this;
    let gapped = false;
    for (let p = 0; p < pre; p++) {
      const from = (p * length + t) * post;
      const at = period * this.cells + p * post;
      const mark = p * post;
      for (let q = 0; q < post; q++) {
        const v = values[from + q]!;
        if (v >= least) {
          sum[at + q]! += v;
          count[at + q]!++;
        } else if (v !== v) {
          gaps[mark + q] = 1;
          gapped = true;
        }
      }
    }
    return gapped;
  }

  result() {
    return this.finish(this.sum, this.count);
  }
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
