/**
 * Order statistics and moments over plain arrays of numbers, shared by the scalar reducers, their streaming
 * and gathered forms, and resampling. Pure functions, no engine imports.
 */

export function sumOf(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s;
}

/** Sample variance by two passes (mean, then squared deviations), NaN for a single value. */
export function varianceOf(values: ArrayLike<number>): number {
  const n = values.length;
  const mean = sumOf(values) / n;
  let m2 = 0;
  for (let i = 0; i < n; i++) m2 += (values[i]! - mean) ** 2;
  return m2 / (n - 1);
}

/** Sorted copy in ascending order with NaN last. */
function sorted(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/** Type 7 quantiles (Hyndman and Fan) of sorted values without NaN. */
export function quantileSorted(values: ArrayLike<number>, p: number): number {
  const h = (values.length - 1) * p;
  const lo = Math.floor(h);
  const f = h - lo;
  // (1-f)·a + f·b keeps -Infinity and +Infinity where a + f·(b - a) would give NaN.
  return f === 0 ? values[lo]! : (1 - f) * values[lo]! + f * values[lo + 1]!;
}

export function medianOf(values: ArrayLike<number>): number {
  const s = sorted(values);
  if (Number.isNaN(s[s.length - 1]!)) return NaN;
  return quantileSorted(s, 0.5);
}

export function quantilesOf(values: ArrayLike<number>, probabilities: readonly number[]): number[] {
  const s = sorted(values);
  if (s.length > 0 && Number.isNaN(s[s.length - 1]!)) return probabilities.map(() => NaN);
  return probabilities.map((p) => quantileSorted(s, p));
}
