/**
 * Percentile thresholds of a base period as ETCCDI defines them: for temperature, one threshold per calendar day
 * (a 365-day year; 29 February takes 28 February's), the percentile of the base years' values in a 5-day window
 * centred on that day (the windows of the first and last days reach the two days beyond the base period); for precipitation, one threshold, the percentile of the base period's wet days. Percentiles
 * are Hyndman and Fan's type 8 (median-unbiased), as climdex computes them.
 *
 * Inside the base period a day is not compared with thresholds its own year helped make: Zhang et al. (2005)
 * bootstrap, in which year y is left out of the base, another base year y' takes its place (counted twice), and
 * the exceedance of y's day against those thresholds is averaged over the n - 1 choices of y'.
 */
import { dayKey, type Calendar } from './calendar.ts';

export const WINDOW_DAYS = 5;
const HALF_WINDOW = (WINDOW_DAYS - 1) / 2;
const KEYS = 365;

/** The type 8 percentile `p` (0 to 1) of `sorted` (ascending, no NaN); NaN when empty. */
export function quantileType8(sorted: ArrayLike<number>, n: number, p: number): number {
  if (n === 0) return NaN;
  const h = (n + 1 / 3) * p + 1 / 3;
  if (h <= 1) return sorted[0]!;
  if (h >= n) return sorted[n - 1]!;
  const k = Math.floor(h);
  return sorted[k - 1]! + (h - k) * (sorted[k]! - sorted[k - 1]!);
}

/** An exceedance test: below the threshold (10th percentile indices) or above it (90th). */
export type Side = 'below' | 'above';

export interface BaseYears {
  readonly first: number;
  readonly last: number;
}

/**
 * The values of cell `c` in the window centred on day `key` of `year`, NaN left out: days of the base years and,
 * as climdex takes them, the days just outside it that windows centred in it reach.
 */
function windowValues(
  values: Float64Array,
  cells: number,
  c: number,
  calendar: Calendar,
  reach: { first: number; last: number },
  yearStart: Int32Array,
  year: number,
  key: number,
  out: number[],
): void {
  // In a leap year the keys from 1 March on name the day after (29 February has no key of its own).
  const start = yearStart[year - calendar.year[0]!]!;
  const leapShift = key >= 59 && isLeap(year) ? 1 : 0;
  const centre = start + key + leapShift;
  for (let j = -HALF_WINDOW; j <= HALF_WINDOW; j++) {
    const d = centre + j;
    if (d < reach.first || d > reach.last || d < 0 || d >= calendar.days) continue;
    const v = values[d * cells + c]!;
    if (!Number.isNaN(v)) out.push(v);
  }
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Index of 1 January of each calendar year, from the calendar's first. */
function yearStarts(calendar: Calendar): Int32Array {
  const years = calendar.year[calendar.days - 1]! - calendar.year[0]! + 1;
  const starts = new Int32Array(years);
  for (let d = 0; d < calendar.days; d++)
    if (calendar.month[d] === 1 && calendar.dayOfMonth[d] === 1) starts[calendar.year[d]! - calendar.year[0]!] = d;
  return starts;
}

const ascending = (a: number, b: number) => a - b;

/**
 * Per day and cell (`calendar.days` × `cells`), the share of base-period samples in which the day exceeds its
 * calendar day's `p` threshold on `side`: 0 or 1 outside the base period (everywhere unless `bootstrapped`), the
 * bootstrap average inside; NaN where the value or the threshold is missing.
 */
export function exceedances(
  values: Float64Array,
  cells: number,
  calendar: Calendar,
  base: BaseYears,
  p: number,
  side: Side,
  bootstrapped: boolean,
): Float64Array {
  const out = new Float64Array(calendar.days * cells).fill(NaN);
  const starts = yearStarts(calendar);
  const exceeds = side === 'below' ? (v: number, t: number) => v < t : (v: number, t: number) => v > t;
  const baseYears = base.last - base.first + 1;
  const keys = Int32Array.from({ length: calendar.days }, (_, d) => dayKey(calendar, d));
  const thresholds = new Float64Array(KEYS);
  const next = base.last + 1 - calendar.year[0]!;
  const reach = {
    first: starts[base.first - calendar.year[0]!]! - HALF_WINDOW,
    last: (next < starts.length ? starts[next]! : calendar.days) - 1 + HALF_WINDOW,
  };
  // Per base year and key, the sorted window values of that year alone, reused by every sample.
  const perYear: number[][][] = [];
  // Per key, the base years' window values together, in order.
  const pooled: Float64Array[] = [];
  const window: number[] = [];
  for (let c = 0; c < cells; c++) {
    perYear.length = 0;
    for (let y = base.first; y <= base.last; y++) {
      const byKey: number[][] = [];
      for (let k = 0; k < KEYS; k++) {
        window.length = 0;
        windowValues(values, cells, c, calendar, reach, starts, y, k, window);
        byKey.push(window.slice().sort(ascending));
      }
      perYear.push(byKey);
    }
    for (let k = 0; k < KEYS; k++) {
      const all = Float64Array.from(perYear.flatMap((byKey) => byKey[k]!)).sort();
      pooled[k] = all;
      thresholds[k] = quantileType8(all, all.length, p);
    }
    for (let d = 0; d < calendar.days; d++) {
      const v = values[d * cells + c]!;
      const y = calendar.year[d]!;
      if (Number.isNaN(v) || (bootstrapped && y >= base.first && y <= base.last)) continue;
      const t = thresholds[keys[d]!]!;
      if (!Number.isNaN(t)) out[d * cells + c] = exceeds(v, t) ? 1 : 0;
    }
    if (!bootstrapped || baseYears < 2) continue;
    bootstrap(values, cells, c, calendar, base, starts, { perYear, pooled }, keys, p, exceeds, out);
  }
  return out;
}

/**
 * The in-base exceedances of cell `c`, averaged over the samples in which another year replaces the day's own. A
 * sample's threshold depends on the left-out year, the year that replaces it and the calendar day only, so each is
 * computed once, from the other years' values in order and the replacing year's merged into them (no sort per day).
 */
function bootstrap(
  values: Float64Array,
  cells: number,
  c: number,
  calendar: Calendar,
  base: BaseYears,
  starts: Int32Array,
  { perYear, pooled }: { perYear: number[][][]; pooled: Float64Array[] },
  keys: Int32Array,
  p: number,
  exceeds: (v: number, t: number) => boolean,
  out: Float64Array,
): void {
  const baseYears = perYear.length;
  // Per year that replaces the left-out one and per key, the sample's threshold.
  const thresholds = new Float64Array(baseYears * KEYS);
  let rest = new Float64Array(0);
  let sample = new Float64Array(0);
  for (let own = 0; own < baseYears; own++) {
    for (let k = 0; k < KEYS; k++) {
      const all = pooled[k]!;
      if (rest.length < all.length) [rest, sample] = [new Float64Array(all.length), new Float64Array(all.length * 2)];
      const kept = withoutValues(all, perYear[own]![k]!, rest);
      for (let other = 0; other < baseYears; other++) {
        if (other === own) continue;
        const n = mergeSorted(rest, kept, perYear[other]![k]!, sample);
        thresholds[other * KEYS + k] = quantileType8(sample, n, p);
      }
    }
    const first = starts[base.first + own - calendar.year[0]!]!;
    for (let d = first; d < calendar.days && calendar.year[d] === base.first + own; d++) {
      const v = values[d * cells + c]!;
      if (Number.isNaN(v)) continue;
      const k = keys[d]!;
      let hits = 0;
      let samples = 0;
      for (let other = 0; other < baseYears; other++) {
        const t = thresholds[other * KEYS + k]!;
        if (other === own || Number.isNaN(t)) continue;
        samples++;
        if (exceeds(v, t)) hits++;
      }
      if (samples > 0) out[d * cells + c] = hits / samples;
    }
  }
}

/** Ascending `all` without one occurrence of each of ascending `removed`, into `out`; returns how many are kept. */
function withoutValues(all: Float64Array, removed: readonly number[], out: Float64Array): number {
  let j = 0;
  let n = 0;
  for (const v of all) {
    if (j < removed.length && v === removed[j]) j++;
    else out[n++] = v;
  }
  return n;
}

/** Merges the first `length` values of ascending `a` and ascending `b` into `out`; returns how many. */
function mergeSorted(a: Float64Array, length: number, b: readonly number[], out: Float64Array): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < length && j < b.length) out[n++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!;
  while (i < length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return n;
}

/** Cells whose base-period wet days are gathered at once: a day's values of them are neighbours in memory. */
const GATHERED_CELLS = 64;

/** Per cell, the `p` percentile of the wet days (`wet`) of the base period; NaN without any. */
export function wetDayPercentile(
  values: Float64Array,
  cells: number,
  calendar: Calendar,
  base: BaseYears,
  p: number,
  wet: number,
): Float64Array {
  const out = new Float64Array(cells);
  // The base years are consecutive calendar days.
  let first = 0;
  while (first < calendar.days && calendar.year[first]! < base.first) first++;
  let last = first;
  while (last < calendar.days && calendar.year[last]! <= base.last) last++;
  const span = last - first;
  // Each gathered cell's wet days, in a part of `span` values of its own; `counts`: how many it has.
  const wetDays = new Float64Array(GATHERED_CELLS * span);
  const counts = new Int32Array(GATHERED_CELLS);
  for (let c0 = 0; c0 < cells; c0 += GATHERED_CELLS) {
    const width = Math.min(GATHERED_CELLS, cells - c0);
    counts.fill(0);
    for (let d = first; d < last; d++) {
      const row = d * cells + c0;
      for (let k = 0; k < width; k++) {
        const v = values[row + k]!;
        if (v >= wet) wetDays[k * span + counts[k]!++] = v;
      }
    }
    for (let k = 0; k < width; k++) {
      const n = counts[k]!;
      // A typed array sorts numerically; the wet days hold no NaN.
      out[c0 + k] = quantileType8(wetDays.subarray(k * span, k * span + n).sort(), n, p);
    }
  }
  return out;
}
