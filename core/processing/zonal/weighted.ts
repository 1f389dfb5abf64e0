/**
 * The reducers zonal statistics run without the interpreter or a reducer plan: mean, sum, count, min and max,
 * each cell weighted (the fraction of it inside the geometry for `weighting: "coverage"`, 1 for pixel centres):
 * the weighted mean Σwv/Σw, the weighted sum Σwv, the count Σw of valid values, and min and max over the cells
 * with any weight. NaN is nodata, skipped unless `ignore_nodata` is false. A chunk is read in two steps: its
 * runs of pixels, plane by plane (one time step, band, ...), in one loop over contiguous memory (`runPartials`,
 * on a worker thread), then their partials added into the result cells in chunk order (`apply`), by the worker
 * itself for the geometries no earlier chunk reached (`foldPartials`).
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

/** Arrays of partials a caller reuses (at least runs × planes long), when they do not leave its thread. */
export type PartialArrays = Pick<RunPartials, 'value' | 'count' | 'missing'>;

/**
 * The partials of `runs` in every plane of `chunk` (plane `b` at `offsets[b]`), for a reducer of `kind`, in
 * new arrays or in `into`.
 */
export function runPartials(
  kind: WeightedKind,
  chunk: ArrayLike<number>,
  runs: PixelRuns,
  offsets: Int32Array,
  finite: boolean,
  into?: PartialArrays,
): RunPartials {
  const R = runs.base.length;
  const planes = offsets.length;
  const { base, length } = runs;
  const value = into?.value ?? new Float64Array(R * planes);
  const count = into?.count ?? new Float64Array(R * planes);
  const missing = into?.missing.fill(0, 0, R * planes) ?? new Uint8Array(R * planes);
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

/**
 * Adds one run's partial at `at` (its value, count and missing flag), with the run's weight `w`, into cell `c` of
 * a state: the one step of every reducer's `apply` and of `foldPartials`, so both give the same bits.
 */
function addPartial(kind: WeightedKind, state: WeightedState, c: number, w: number, partials: RunPartials, at: number) {
  const { acc, weight, nodata } = state;
  const v = partials.value[at]!;
  if (kind === 'mean' || kind === 'sum') acc[c]! += w * v;
  else if (kind === 'max' ? v > acc[c]! : kind === 'min' && v < acc[c]!) acc[c] = v;
  weight[c]! += w * partials.count[at]!;
  if (partials.missing[at]) nodata[c] = 1;
}

/** A reducer's state of `cells` cells before anything is added. */
function initialState(kind: WeightedKind, cells: number): WeightedState {
  return {
    acc: new Float64Array(cells).fill(kind === 'min' ? Infinity : kind === 'max' ? -Infinity : 0),
    weight: new Float64Array(cells),
    nodata: new Uint8Array(cells),
  };
}

/**
 * Which runs of a chunk a worker adds up itself: those of the geometries that no chunk before it (in chunk order,
 * over the same cells of the other dimensions) reached. Their result cells still hold the reducer's initial
 * state, so the worker adds their partials into a state of its own, in the order the caller would, and the caller
 * copies it in: the same bits, without a partial per run and plane crossing threads.
 */
export interface FoldPlan {
  /** Per run: the slot of its geometry in the worker's state, or -1 for a run whose partials go back. */
  slot: Int32Array;
  /** Per slot: its geometry. */
  geometries: Int32Array;
  /** The runs whose partials go back, in run order. */
  rest: Int32Array;
}

/**
 * The fold plan of a chunk's runs (result rows `runs.cell` = geometry × `others`); `begun` marks the geometries
 * that earlier chunks over the same other cells reached, and is updated with this chunk's.
 */
export function foldPlan(runs: PixelRuns, others: number, begun: Uint8Array): FoldPlan {
  const R = runs.cell.length;
  const slot = new Int32Array(R);
  const slotOf = new Map<number, number>();
  const rest: number[] = [];
  for (let r = 0; r < R; r++) {
    const g = runs.cell[r]! / others;
    if (begun[g]) {
      slot[r] = -1;
      rest.push(r);
      continue;
    }
    let s = slotOf.get(g);
    if (s === undefined) slotOf.set(g, (s = slotOf.size));
    slot[r] = s;
  }
  for (const g of slotOf.keys()) begun[g] = 1;
  return { slot, geometries: Int32Array.from(slotOf.keys()), rest: Int32Array.from(rest) };
}

/** The runs of `runs` at `indices`, in that order. */
export function selectRuns(runs: PixelRuns, indices: Int32Array): PixelRuns {
  return {
    base: Int32Array.from(indices, (r) => runs.base[r]!),
    length: Int32Array.from(indices, (r) => runs.length[r]!),
    weight: Float64Array.from(indices, (r) => runs.weight[r]!),
    cell: Int32Array.from(indices, (r) => runs.cell[r]!),
  };
}

/**
 * What a worker hands back for a chunk with a fold plan: the state of the slots' cells (slot `s`, plane `b` at
 * `b * slots + s`) and the partials of the other runs (plane `b`, `j`-th run of `rest` at `b * rest + j`).
 */
export interface FoldedPartials {
  local: WeightedState;
  rest: RunPartials;
}

/** The folded partials of a chunk of `planes` planes before any is added. */
export function emptyFolded(kind: WeightedKind, plan: FoldPlan, planes: number): FoldedPartials {
  const n = plan.rest.length * planes;
  return {
    local: initialState(kind, plan.geometries.length * planes),
    rest: { value: new Float64Array(n), count: new Float64Array(n), missing: new Uint8Array(n), finite: undefined },
  };
}

/**
 * Folds `partials` (of every run, over planes `from` to `from + planes` of the chunk's) into `folded` by `plan`,
 * adding each run's partial as `apply` would.
 */
export function foldPartials(
  kind: WeightedKind,
  partials: RunPartials,
  runs: PixelRuns,
  plan: FoldPlan,
  folded: FoldedPartials,
  from: number,
  planes: number,
): void {
  const R = runs.base.length;
  const { slot, rest } = plan;
  const S = plan.geometries.length;
  const n = rest.length;
  const { local } = folded;
  const back = folded.rest;
  for (let b = 0; b < planes; b++) {
    const plane = from + b;
    for (let r = 0, at = b * R; r < R; r++, at++) {
      const s = slot[r]!;
      if (s >= 0) addPartial(kind, local, plane * S + s, runs.weight[r]!, partials, at);
    }
    for (let j = 0; j < n; j++) {
      const at = b * R + rest[j]!;
      back.value[plane * n + j] = partials.value[at]!;
      back.count[plane * n + j] = partials.count[at]!;
      back.missing[plane * n + j] = partials.missing[at]!;
    }
  }
}

/** Copies a worker's slot states into `state` (plane `b` to result cells `geometry × others + targets[b]`). */
export function copySlots(
  state: WeightedState,
  local: WeightedState,
  geometries: Int32Array,
  others: number,
  targets: Int32Array,
) {
  const planes = targets.length;
  geometries.forEach((g, s) => {
    for (let b = 0; b < planes; b++) {
      const c = g * others + targets[b]!;
      const from = b * geometries.length + s;
      state.acc[c] = local.acc[from]!;
      state.weight[c] = local.weight[from]!;
      state.nodata[c] = local.nodata[from]!;
    }
  });
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
    init: (cells) => initialState(kind, cells),
    apply: (state, partials, runs, targets) => {
      const { cell } = runs;
      const R = runs.base.length;
      for (let b = 0; b < targets.length; b++) {
        const target = targets[b]!;
        for (let r = 0, at = b * R; r < R; r++, at++)
          addPartial(kind, state, cell[r]! + target, runs.weight[r]!, partials, at);
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
