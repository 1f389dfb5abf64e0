/**
 * The reducers zonal statistics run without the interpreter or a reducer plan: mean, sum, count, min and max,
 * each cell weighted (the fraction of it inside the geometry for `weighting: "coverage"`, 1 for pixel centres):
 * the weighted mean Σwv/Σw, the weighted sum Σwv, the count Σw of valid values, and min and max over the cells
 * with any weight. NaN is nodata, skipped unless `ignore_nodata` is false. They accumulate a whole plane of a
 * chunk (one time step, band, ...) for every pixel of every geometry in one loop over contiguous memory.
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
}

export interface WeightedReducer {
  init(cells: number): WeightedState;
  /**
   * Adds the values of runs `from` to `to` (excluded) of one plane (at `offset` in the chunk) to result cells
   * `runs.cell[r] + target`, each value with its run's weight.
   */
  accumulate(
    state: WeightedState,
    chunk: ArrayLike<number>,
    runs: PixelRuns,
    offset: number,
    target: number,
    from: number,
    to: number,
  ): void;
  finish(state: WeightedState, out: Float64Array, from: number): void;
}

export function weightedReducer(kind: WeightedKind, ignoreNodata: boolean): WeightedReducer {
  return {
    init: (cells) => ({
      acc: new Float64Array(cells).fill(kind === 'min' ? Infinity : kind === 'max' ? -Infinity : 0),
      weight: new Float64Array(cells),
      nodata: new Uint8Array(cells),
    }),
    accumulate: (state, chunk, runs, offset, target, from, to) => {
      const { acc, weight, nodata } = state;
      const { base, length, cell } = runs;
      const weights = runs.weight;
      // One loop per kind, so that each stays tight; a run adds to one result cell.
      for (let r = from; r < to; r++) {
        const c = cell[r]! + target;
        const w = weights[r]!;
        const start = base[r]! + offset;
        const end = start + length[r]!;
        let sum = 0;
        let n = 0;
        let missing = false;
        if (kind === 'mean' || kind === 'sum') {
          for (let k = start; k < end; k++) {
            const v = chunk[k]!;
            if (v !== v) missing = true;
            else {
              sum += v;
              n++;
            }
          }
          acc[c]! += w * sum;
        } else if (kind === 'count') {
          for (let k = start; k < end; k++) {
            const v = chunk[k]!;
            if (v !== v) missing = true;
            // count counts valid values: finite numbers (is_valid).
            else if (v - v === 0) n++;
          }
        } else {
          let extreme = acc[c]!;
          for (let k = start; k < end; k++) {
            const v = chunk[k]!;
            if (v !== v) missing = true;
            else {
              n++;
              if (kind === 'max' ? v > extreme : v < extreme) extreme = v;
            }
          }
          acc[c] = extreme;
        }
        weight[c]! += w * n;
        if (missing) nodata[c] = 1;
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
