/**
 * The per-period reductions most indices are made of, over daily values (a block, `values[day * cells + cell]`, or
 * each day's row as an input is read; NaN for missing) into `count` × `cells` results. Missing days are skipped (a comparison with NaN is false); the
 * missing-day rule is applied after. Each is one loop over days and cells with its test written in it: a test
 * passed as a function would be a call per value.
 */
import type { ChunkArray } from '../../cube/cube.ts';
import type { Periods } from './calendar.ts';

/** A day's test of its value against a limit: `value < limit`, `value > limit` or `value >= limit`. */
export interface DayCondition {
  readonly test: '<' | '>' | '>=';
  readonly limit: number;
}

/**
 * A reduction of days into a value per period and cell, fed one day at a time: `values[from + cell]`, NaN for
 * missing, into period `period`'s results. Fed from a block (`reduceBlock`), a day's row as it is read, or a day of
 * a decoded chunk as stored (float32 or float64) when its values need no conversion.
 */
export interface PeriodReduction {
  day(values: ChunkArray, from: number, period: number): void;
  result(): Float64Array;
}

/** Feeds every day of a period in `values` (a block, `values[day * cells + cell]`) to `reduction`. */
export function reduceBlock<R extends PeriodReduction>(
  reduction: R,
  values: Float64Array,
  cells: number,
  periods: Periods,
) {
  forEachRow(periods, cells, (row, at) => reduction.day(values, row, at / cells));
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

  day(values: ChunkArray, row: number, period: number) {
    const { out, cells } = this;
    const { test, limit } = this.condition;
    const at = period * cells;
    if (test === '<') {
      for (let c = 0; c < cells; c++) if (values[row + c]! < limit) out[at + c]!++;
    } else if (test === '>') {
      for (let c = 0; c < cells; c++) if (values[row + c]! > limit) out[at + c]!++;
    } else for (let c = 0; c < cells; c++) if (values[row + c]! >= limit) out[at + c]!++;
  }

  result() {
    return this.out;
  }
}

/** The largest (`max`) or smallest value. */
export class Extreme extends PerPeriodAndCell implements PeriodReduction {
  private readonly max: boolean;

  constructor(cells: number, periods: Periods, max: boolean) {
    super(cells, periods, max ? -Infinity : Infinity);
    this.max = max;
  }

  day(values: ChunkArray, row: number, period: number) {
    const { out, cells } = this;
    const at = period * cells;
    if (this.max)
      for (let c = 0; c < cells; c++) {
        const v = values[row + c]!;
        if (v > out[at + c]!) out[at + c] = v;
      }
    else
      for (let c = 0; c < cells; c++) {
        const v = values[row + c]!;
        if (v < out[at + c]!) out[at + c] = v;
      }
  }

  /**
   * Day `t` of a time chunk as stored, `length` days a row (`stored[(p * length + t) * post + q]` for the cell
   * `p * post + q`), unconverted: the largest or smallest of a monotone increasing conversion is the conversion of
   * the stored one, so the caller converts the result once. Marks the day's NaNs with 1s in `gaps`; whether it had
   * any. Reading the chunk as decoded spares copying each day into a row first.
   */
  storedDay(
    stored: ChunkArray,
    length: number,
    t: number,
    pre: number,
    post: number,
    period: number,
    gaps: Uint8Array,
  ) {
    const { out, cells } = this;
    const at = period * cells;
    let gapped = false;
    for (let p = 0; p < pre; p++) {
      const from = (p * length + t) * post;
      const to = at + p * post;
      if (this.max)
        for (let q = 0; q < post; q++) {
          const v = stored[from + q]!;
          if (v > out[to + q]!) out[to + q] = v;
          else if (v !== v) {
            gaps[p * post + q] = 1;
            gapped = true;
          }
        }
      else
        for (let q = 0; q < post; q++) {
          const v = stored[from + q]!;
          if (v < out[to + q]!) out[to + q] = v;
          else if (v !== v) {
            gaps[p * post + q] = 1;
            gapped = true;
          }
        }
    }
    return gapped;
  }

  result() {
    return finite(this.out);
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

  day(values: ChunkArray, row: number, period: number) {
    const { sum, count, cells, least } = this;
    const at = period * cells;
    for (let c = 0; c < cells; c++) {
      const v = values[row + c]!;
      if (v >= least) {
        sum[at + c]! += v;
        count[at + c]!++;
      }
    }
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
