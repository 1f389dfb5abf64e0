/**
 * The reducers zonal statistics run without the interpreter or a reducer plan: mean, sum, count, min and max,
 * each cell weighted (the fraction of it inside the geometry for `weighting: "coverage"`, 1 for pixel centres):
 * the weighted mean Σwv/Σw, the weighted sum Σwv, the count Σw of valid values, and min and max over the cells
 * with any weight. NaN is nodata, skipped unless `ignore_nodata` is false. A chunk's runs of pixels are read
 * plane by plane (one time step, band, ...), each in one loop over contiguous memory, on a worker thread; what a
 * run holds in a plane (its partial) is added into the result cells in chunk order: by the worker in the same
 * pass for the geometries no earlier chunk reached (`foldedPartials`), else by the caller (`runPartials`, then
 * `apply`).
 */
import type { WasmMemory } from '../kernels/wasm/api.ts';
import { float32RunSums, runSumsAt, runSumsRoom, type RunSums } from '../kernels/wasm/run-sums.ts';

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

/**
 * Where the loops over a chunk's runs put what they find for run `r` in plane `b` (`put`): a run of a geometry
 * with a slot (`slot[r] >= 0`) is added into that slot's cell of the plane in `local` (slot `s` at
 * `b * slots + s`), as `apply` adds it; any other run's partial is kept in `back` (at `b * backRuns + place[r]`).
 */
interface PartialsInto {
  kind: WeightedKind;
  /** The runs' weights. */
  weight: Float64Array;
  slot: Int32Array;
  place: Int32Array;
  local: WeightedState;
  slots: number;
  back: RunPartials;
  backRuns: number;
}

/** Puts run `r`'s partial in plane `b` (its value, count and whether it holds a NaN) where `into` says. */
function put(into: PartialsInto, b: number, r: number, value: number, count: number, missing: boolean): void {
  const s = into.slot[r]!;
  if (s >= 0) {
    addPartial(into.kind, into.local, b * into.slots + s, into.weight[r]!, value, count, missing);
    return;
  }
  const at = b * into.backRuns + into.place[r]!;
  const { back } = into;
  back.value[at] = value;
  back.count[at] = count;
  if (missing) back.missing[at] = 1;
}

/**
 * The partials of `runs` in every plane of `chunk` (plane `b` at `offsets[b]`), for a reducer of `kind`;
 * `memory`: the shared WebAssembly memory the chunk lies in, if it does.
 */
export function runPartials(
  kind: WeightedKind,
  chunk: ArrayLike<number>,
  runs: PixelRuns,
  offsets: Int32Array,
  finite: boolean,
  memory?: WasmMemory,
): RunPartials {
  const R = runs.base.length;
  const cells = R * offsets.length;
  const back: RunPartials = {
    value: new Float64Array(cells),
    count: new Float64Array(cells),
    missing: new Uint8Array(cells),
    finite: finite ? new Float64Array(cells) : undefined,
  };
  const into: PartialsInto = {
    kind,
    weight: runs.weight,
    slot: new Int32Array(R).fill(-1),
    place: Int32Array.from({ length: R }, (_, r) => r),
    local: initialState(kind, 0),
    slots: 0,
    back,
    backRuns: R,
  };
  readRuns(chunk, runs, offsets, into, back.finite, memory);
  return back;
}

/**
 * Reads every run of every plane of `chunk` and puts what it finds `into` its places; with `valid`, also each
 * run's count of valid (finite) values there (plane `b`, run `r` at `b * runs + r`). A float32 chunk in a shared
 * WebAssembly `memory` has the sums of pixel centres taken by the SIMD kernel, the same bits as the loops here.
 */
function readRuns(
  chunk: ArrayLike<number>,
  runs: PixelRuns,
  offsets: Int32Array,
  into: PartialsInto,
  valid?: Float64Array,
  memory?: WasmMemory,
): void {
  const { kind } = into;
  if ((kind === 'mean' || kind === 'sum') && !valid) {
    const inKernel =
      memory && !runs.pixelWeight && chunk instanceof Float32Array
        ? float32RunSums(memory, chunk, runs.base, runs.length, offsets)
        : undefined;
    const sums = inKernel ?? sumsByFourPlanes(chunk, runs, offsets);
    putSums(into, sums, wholeWeights(runs), offsets.length);
    return;
  }
  const R = runs.base.length;
  const planes = offsets.length;
  const { base, length } = runs;
  for (let r0 = 0; r0 < R; r0 += BLOCK) {
    const r1 = Math.min(R, r0 + BLOCK);
    for (let b = 0; b < planes; b++) {
      const offset = offsets[b]!;
      // One loop per kind, so that each stays tight.
      for (let r = r0; r < r1; r++) {
        const start = base[r]! + offset;
        const end = start + length[r]!;
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
        put(into, b, r, sum, n, nan);
        if (valid) {
          let f = 0;
          for (let k = start; k < end; k++) if (chunk[k]! - chunk[k]! === 0) f++;
          valid[b * R + r] = f;
        }
      }
    }
  }
}

/**
 * The sums and counts of `readRuns` for mean and sum, each run read in four planes at once: four independent
 * sums keep the adder busy where one waits on the previous addition. Each plane's values are still added in pixel
 * order, so the sums are the same bits as one plane at a time. A NaN adds 0 (a sum that starts at +0 stays the
 * same bits) rather than being branched around: the loop is then compiled without a branch per value, which
 * costs several times the addition. A run counts its NaNs (with `pixelWeight`, their weight), fewer than its
 * valid values, and its count is its length (or whole weight) less those.
 */
function sumsByFourPlanes(chunk: ArrayLike<number>, runs: PixelRuns, offsets: Int32Array): RunSums {
  const R = runs.base.length;
  const planes = offsets.length;
  const { base, length, pixelWeight } = runs;
  const room = runSumsRoom(planes, R);
  const { sums, nans } = room;
  for (let b = 0; b < planes; b += 4) {
    // A last group of fewer than four planes reads its last plane again in place of the missing ones (from the
    // cache), into places past the last plane's.
    const o0 = offsets[b]!;
    const o1 = offsets[Math.min(b + 1, planes - 1)]!;
    const o2 = offsets[Math.min(b + 2, planes - 1)]!;
    const o3 = offsets[Math.min(b + 3, planes - 1)]!;
    for (let r = 0, p = 0; r < R; p += length[r]!, r++) {
      const start = base[r]!;
      const end = start + length[r]!;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let n0 = 0;
      let n1 = 0;
      let n2 = 0;
      let n3 = 0;
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
      const at = runSumsAt(b, r, R);
      sums[at] = s0;
      sums[at + 1] = s1;
      sums[at + 2] = s2;
      sums[at + 3] = s3;
      nans[at] = n0;
      nans[at + 1] = n1;
      nans[at + 2] = n2;
      nans[at + 3] = n3;
    }
  }
  return room;
}

/** Each run's whole weight: its length, or with `pixelWeight` the sum of its pixels' weights. */
function wholeWeights({ length, pixelWeight }: PixelRuns): Float64Array {
  if (!pixelWeight) return Float64Array.from(length);
  const whole = new Float64Array(length.length);
  for (let r = 0, q = 0; r < length.length; r++) for (let k = 0; k < length[r]!; k++, q++) whole[r]! += pixelWeight[q]!;
  return whole;
}

/**
 * Puts the sums of every run in every plane where `into` says, with their counts: each run's length (or whole
 * weight `whole[r]`) less its NaNs. It is `put` and `addPartial` for a mean or a sum written out in one loop: a call
 * of `put` for each (which asks which reducer it adds for) took about twice as long, some 25 ms of a year's call.
 */
function putSums(into: PartialsInto, { sums, nans }: RunSums, whole: Float64Array, planes: number): void {
  const { slot, place, weight, slots, back, backRuns } = into;
  const { acc, weight: counted, nodata } = into.local;
  const R = slot.length;
  for (let b = 0; b < planes; b++)
    for (let r = 0, at = runSumsAt(b, 0, R); r < R; r++, at += 4) {
      const n = nans[at]!;
      const count = n > 0 ? whole[r]! - n : whole[r]!;
      const s = slot[r]!;
      if (s >= 0) {
        const c = b * slots + s;
        const w = weight[r]!;
        acc[c]! += w * sums[at]!;
        counted[c]! += w * count;
        if (n > 0) nodata[c] = 1;
      } else {
        const j = b * backRuns + place[r]!;
        back.value[j] = sums[at]!;
        back.count[j] = count;
        if (n > 0) back.missing[j] = 1;
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
 * Adds one run's partial (its value, count and whether it holds a NaN), with the run's weight `w`, into cell `c` of
 * a state: the one step of every reducer's `apply` and of a worker's fold (`foldedPartials`), so both give the
 * same bits (`putSums` writes out its mean and sum for the sums' loops).
 */
function addPartial(
  kind: WeightedKind,
  state: WeightedState,
  c: number,
  w: number,
  value: number,
  count: number,
  missing: boolean,
) {
  const { acc, weight, nodata } = state;
  if (kind === 'mean' || kind === 'sum') acc[c]! += w * value;
  else if (kind === 'max' ? value > acc[c]! : kind === 'min' && value < acc[c]!) acc[c] = value;
  weight[c]! += w * count;
  if (missing) nodata[c] = 1;
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

/**
 * Reads every run of every plane of `chunk` (plane `b` at `offsets[b]`) and folds what it finds by `plan` as it
 * goes: a run of a slot's geometry is added into the slot's cell of that plane as `apply` would add it (each
 * plane's runs in run order), the partials of the other runs are kept to go back; `memory` as for `runPartials`.
 */
export function foldedPartials(
  kind: WeightedKind,
  chunk: ArrayLike<number>,
  runs: PixelRuns,
  offsets: Int32Array,
  plan: FoldPlan,
  memory?: WasmMemory,
): FoldedPartials {
  const planes = offsets.length;
  const slots = plan.geometries.length;
  const backRuns = plan.rest.length;
  const local = initialState(kind, slots * planes);
  const back: RunPartials = {
    value: new Float64Array(backRuns * planes),
    count: new Float64Array(backRuns * planes),
    missing: new Uint8Array(backRuns * planes),
    finite: undefined,
  };
  const place = new Int32Array(runs.base.length);
  plan.rest.forEach((r, j) => (place[r] = j));
  const into: PartialsInto = { kind, weight: runs.weight, slot: plan.slot, place, local, slots, back, backRuns };
  readRuns(chunk, runs, offsets, into, undefined, memory);
  return { local, rest: back };
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
          addPartial(
            kind,
            state,
            cell[r]! + target,
            runs.weight[r]!,
            partials.value[at]!,
            partials.count[at]!,
            partials.missing[at] === 1,
          );
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
