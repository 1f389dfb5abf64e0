/**
 * The reducers zonal statistics run without the interpreter or a reducer plan: mean, sum, count, min and max,
 * each cell weighted (the fraction of it inside the geometry for `weighting: "coverage"`, 1 for pixel centres):
 * the weighted mean Σwv/Σw, the weighted sum Σwv, the count Σw of valid values, and min and max over the cells
 * with any weight. NaN is nodata, skipped unless `ignore_nodata` is false. A chunk is read in two steps: its
 * runs of pixels, plane by plane (one time step, band, ...), in one loop over contiguous memory (`runPartials`,
 * on a worker thread), then their partials added into the result cells in chunk order (`apply`).
 */
export const WEIGHTED_REDUCERS = ['mean', 'sum', 'count', 'min', 'max'] as const;
export type WeightedKind = (typeof WEIGHTED_REDUCERS)[number];

export interface WeightedState {
  acc: Float64Array;
  weight: Float64Array;
  nodata: Uint8Array;
}

/** Runs of pixels of a chunk: start offset, length, weight, and the result row (geometry × other cells). */
export interface PixelRuns {
  base: Int32Array;
  length: Int32Array;
  weight: Float64Array;
  cell: Int32Array;
  /**
   * Each pixel's weight, the runs' pixels one after the other, when a run's pixels weigh differently (coverage
   * fractions, for a mean or a sum only); the runs' own weights are then 1.
   */
  pixelWeight?: Float64Array;
}

/**
 * What the loop over one run of one plane of a chunk finds, per plane `b` and run `r` at index `b * runs + r`:
 * the part of the work that reads the chunk, which a worker thread does (`chunk-task.ts`), apart from adding it
 * into the result cells, which the caller does in chunk order, so that results do not depend on which thread
 * read which chunk.
 */
export interface RunPartials {
  /** The sum of the run's values (mean, sum), or their extreme (min, max); 0 for count. */
  value: Float64Array;
  /** Values counted: not NaN (mean, sum, min, max), or valid (count); their weight with `pixelWeight`. */
  count: Float64Array;
  /** 1 where the run holds a NaN. */
  missing: Uint8Array;
  /** Valid (finite) values, when asked: the valid counts of `aggregate_spatial`'s `target_dimension`. */
  finite: Float64Array | undefined;
}

/** Runs accumulated together over all planes of a chunk: the runs stay in cache while each plane is read. */
const BLOCK = 256;

/** The partials of `runs` in every plane of `chunk` (plane `b` at `offsets[b]`), for a reducer of `kind`. */
export function runPartials(
  kind: WeightedKind,
  chunk: ArrayLike<number>,
  runs: PixelRuns,
  offsets: Int32Array,
  finite: boolean,
): RunPartials {
  const R = runs.base.length;
  const planes = offsets.length;
  const { base, length } = runs;
  const value = new Float64Array(R * planes);
  const count = new Float64Array(R * planes);
  const missing = new Uint8Array(R * planes);
  if ((kind === 'mean' || kind === 'sum') && !finite) {
    sumsByFourPlanes(chunk, runs, offsets, value, count, missing);
    return { value, count, missing, finite: undefined };
  }
  const valid = finite ? new Float64Array(R * planes) : undefined;
  for (let r0 = 0; r0 < R; r0 += BLOCK) {
    const r1 = Math.min(R, r0 + BLOCK);
    for (let b = 0; b < planes; b++) {
      const offset = offsets[b]!;
      // One loop per kind, so that each stays tight.
      for (let r = r0; r < r1; r++) {
        const start = base[r]! + offset;
        const end = start + length[r]!;
        const at = b * R + r;
        let sum = 0;
        let n = 0;
        let nan = false;
        if (kind === 'mean' || kind === 'sum') {
          for (let k = start; k < end; k++) {
            const v = chunk[k]!;
            if (v !== v) nan = true;
            else {
              sum += v;
              n++;
            }
          }
        } else if (kind === 'count') {
          for (let k = start; k < end; k++) {
            const v = chunk[k]!;
            if (v !== v) nan = true;
            // count counts valid values: finite numbers (is_valid).
            else if (v - v === 0) n++;
          }
        } else {
          let extreme = kind === 'min' ? Infinity : -Infinity;
          for (let k = start; k < end; k++) {
            const v = chunk[k]!;
            if (v !== v) nan = true;
            else {
              n++;
              if (kind === 'max' ? v > extreme : v < extreme) extreme = v;
            }
          }
          sum = extreme;
        }
        value[at] = sum;
        count[at] = n;
        if (nan) missing[at] = 1;
        if (valid) {
          let f = 0;
          for (let k = start; k < end; k++) if (chunk[k]! - chunk[k]! === 0) f++;
          valid[at] = f;
        }
      }
    }
  }
  return { value, count, missing, finite: valid };
}

/**
 * The sums and counts of `runPartials` for mean and sum, each run read in four planes at once: four independent
 * sums keep the adder busy where one waits on the previous addition. Each plane's values are still added in pixel
 * order, so the sums are the same bits as one plane at a time. A NaN adds 0 (a sum that starts at +0 stays the
 * same bits) rather than being branched around: the loop is then compiled without a branch per value, which
 * costs several times the addition. A run counts its NaNs (with `pixelWeight`, their weight), fewer than its
 * valid values, and its count is its length (or whole weight) less those.
 */
function sumsByFourPlanes(
  chunk: ArrayLike<number>,
  runs: PixelRuns,
  offsets: Int32Array,
  value: Float64Array,
  count: Float64Array,
  missing: Uint8Array,
): void {
  const R = runs.base.length;
  const planes = offsets.length;
  const { base, length, pixelWeight } = runs;
  const whole = Float64Array.from(length);
  if (pixelWeight) {
    whole.fill(0);
    for (let r = 0, q = 0; r < R; r++) for (let k = 0; k < length[r]!; k++, q++) whole[r]! += pixelWeight[q]!;
  }
  const put = (at: number, r: number, sum: number, nan: number) => {
    value[at] = sum;
    count[at] = nan > 0 ? whole[r]! - nan : whole[r]!;
    if (nan > 0) missing[at] = 1;
  };
  let b = 0;
  for (; b + 4 <= planes; b += 4) {
    const [o0, o1, o2, o3] = [offsets[b]!, offsets[b + 1]!, offsets[b + 2]!, offsets[b + 3]!];
    for (let r = 0, p = 0; r < R; p += length[r]!, r++) {
      const start = base[r]!;
      const end = start + length[r]!;
      let [s0, s1, s2, s3, n0, n1, n2, n3] = [0, 0, 0, 0, 0, 0, 0, 0];
      // Two loops, so that pixel centres (no weights) stay the tighter one.
      if (pixelWeight)
        for (let k = start, q = p; k < end; k++, q++) {
          const w = pixelWeight[q]!;
          const v0 = chunk[o0 + k]!;
          const v1 = chunk[o1 + k]!;
          const v2 = chunk[o2 + k]!;
          const v3 = chunk[o3 + k]!;
          s0 += v0 === v0 ? w * v0 : 0;
          n0 += v0 === v0 ? 0 : w;
          s1 += v1 === v1 ? w * v1 : 0;
          n1 += v1 === v1 ? 0 : w;
          s2 += v2 === v2 ? w * v2 : 0;
          n2 += v2 === v2 ? 0 : w;
          s3 += v3 === v3 ? w * v3 : 0;
          n3 += v3 === v3 ? 0 : w;
        }
      else
        for (let k = start; k < end; k++) {
          const v0 = chunk[o0 + k]!;
          const v1 = chunk[o1 + k]!;
          const v2 = chunk[o2 + k]!;
          const v3 = chunk[o3 + k]!;
          s0 += v0 === v0 ? v0 : 0;
          n0 += v0 === v0 ? 0 : 1;
          s1 += v1 === v1 ? v1 : 0;
          n1 += v1 === v1 ? 0 : 1;
          s2 += v2 === v2 ? v2 : 0;
          n2 += v2 === v2 ? 0 : 1;
          s3 += v3 === v3 ? v3 : 0;
          n3 += v3 === v3 ? 0 : 1;
        }
      const at = b * R + r;
      put(at, r, s0, n0);
      put(at + R, r, s1, n1);
      put(at + 2 * R, r, s2, n2);
      put(at + 3 * R, r, s3, n3);
    }
  }
  for (; b < planes; b++) {
    const offset = offsets[b]!;
    for (let r = 0, p = 0; r < R; p += length[r]!, r++) {
      const start = base[r]! + offset;
      const end = start + length[r]!;
      let [sum, nan] = [0, 0];
      for (let k = start, q = p; k < end; k++, q++) {
        const v = chunk[k]!;
        const w = pixelWeight ? pixelWeight[q]! : 1;
        sum += v === v ? w * v : 0;
        nan += v === v ? 0 : w;
      }
      put(b * R + r, r, sum, nan);
    }
  }
}

/**
 * Adds the valid counts of `partials` (computed with `finite`) into `totals` and `valid`: every pixel of a run
 * adds its weight to the total, every valid one to the valid count, one addition per pixel.
 */
export function applyCounts(
  totals: Float64Array,
  valid: Float64Array,
  partials: RunPartials,
  runs: PixelRuns,
  targets: Int32Array,
): void {
  const R = runs.base.length;
  const finite = partials.finite!;
  for (let b = 0; b < targets.length; b++)
    for (let r = 0; r < R; r++) {
      const at = runs.cell[r]! + targets[b]!;
      const w = runs.weight[r]!;
      for (let k = 0, n = runs.length[r]!; k < n; k++) totals[at]! += w;
      for (let k = 0, n = finite[b * R + r]!; k < n; k++) valid[at]! += w;
    }
}

export interface WeightedReducer {
  readonly kind: WeightedKind;
  init(cells: number): WeightedState;
  /**
   * Adds the partials of a chunk's runs (plane `b` to result cells `runs.cell[r] + targets[b]`), each with its
   * run's weight.
   */
  apply(state: WeightedState, partials: RunPartials, runs: PixelRuns, targets: Int32Array): void;
  finish(state: WeightedState, out: Float64Array, from: number): void;
}

export function weightedReducer(kind: WeightedKind, ignoreNodata: boolean): WeightedReducer {
  return {
    kind,
    init: (cells) => ({
      acc: new Float64Array(cells).fill(kind === 'min' ? Infinity : kind === 'max' ? -Infinity : 0),
      weight: new Float64Array(cells),
      nodata: new Uint8Array(cells),
    }),
    apply: (state, partials, runs, targets) => {
      const { acc, weight, nodata } = state;
      const { cell } = runs;
      const weights = runs.weight;
      const { value, count, missing } = partials;
      const R = runs.base.length;
      const sums = kind === 'mean' || kind === 'sum';
      for (let b = 0; b < targets.length; b++) {
        const target = targets[b]!;
        for (let r = 0, at = b * R; r < R; r++, at++) {
          const c = cell[r]! + target;
          const w = weights[r]!;
          const v = value[at]!;
          if (sums) acc[c]! += w * v;
          else if (kind === 'max' ? v > acc[c]! : kind === 'min' && v < acc[c]!) acc[c] = v;
          weight[c]! += w * count[at]!;
          if (missing[at]) nodata[c] = 1;
        }
      }
    },
    finish: (state, out, from) => {
      for (let i = 0; i < out.length; i++) {
        const c = from + i;
        const w = state.weight[c]!;
        if (!ignoreNodata && state.nodata[c]) out[i] = NaN;
        else if (kind === 'count') out[i] = w;
        else if (w === 0) out[i] = NaN;
        else out[i] = kind === 'mean' ? state.acc[c]! / w : state.acc[c]!;
      }
    },
  };
}
