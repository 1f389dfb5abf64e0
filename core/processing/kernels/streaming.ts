/**
 * Streaming forms of the reducers: state per cell in typed arrays, updated with one position along the reduced
 * dimension at a time, mergeable across disjoint runs of positions, finished into one value per cell. NaN is
 * nodata, as in chunks; `ignore_nodata: false` makes any nodata the result. Tested against the scalar forms in
 * `processes/reducers.ts`, which define the semantics.
 */
import { ProcessingError } from '../errors.ts';
import type { Args, CellKind, ReducerState, StreamingReducer } from '../process.ts';
import { medianOf } from './statistics.ts';
import type { Label } from '../values/labeled-array.ts';

interface Counted extends ReducerState {
  n: Float64Array;
  /** Positions that held nodata (for `ignore_nodata: false`). */
  nodata: Uint8Array;
}

function counted(cells: number): Counted {
  return { cells, n: new Float64Array(cells), nodata: new Uint8Array(cells) };
}

const ignores = (constants: Args) => constants.ignore_nodata !== false;

type Fold = 'sum' | 'product' | 'min' | 'max';

/** sum, product, min, max: one accumulator per cell. */
function folding(fold: Fold, ignoreNodata: boolean): StreamingReducer<Counted & { acc: Float64Array }> {
  const start = fold === 'product' ? 1 : fold === 'sum' ? 0 : NaN;
  const step = {
    sum: (a: number, v: number) => a + v,
    product: (a: number, v: number) => a * v,
    min: (a: number, v: number) => Math.min(a, v),
    max: (a: number, v: number) => Math.max(a, v),
  }[fold];
  return {
    resultKind: 'number',
    init: (cells) => ({ ...counted(cells), acc: new Float64Array(cells).fill(start) }),
    update: (state, offset, values) => {
      const { acc, n, nodata } = state;
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        const c = offset + i;
        if (v !== v) nodata[c] = 1;
        else {
          acc[c] = n[c] === 0 ? (fold === 'min' || fold === 'max' ? v : step(start, v)) : step(acc[c]!, v);
          n[c]!++;
        }
      }
    },
    merge: (into, other) => {
      for (let c = 0; c < into.cells; c++) {
        if (other.nodata[c]) into.nodata[c] = 1;
        if (other.n[c] === 0) continue;
        into.acc[c] = into.n[c] === 0 ? other.acc[c]! : step(into.acc[c]!, other.acc[c]!);
        into.n[c]! += other.n[c]!;
      }
    },
    finish: (state, out, offset) => {
      for (let c = 0; c < state.cells; c++)
        out[offset + c] = (!ignoreNodata && state.nodata[c]) || state.n[c] === 0 ? NaN : state.acc[c]!;
    },
  };
}

/** mean, variance and sd by Welford's update and Chan's merge (count, mean, M2). */
function moments(
  result: 'mean' | 'variance' | 'sd',
  ignoreNodata: boolean,
): StreamingReducer<Counted & { mean: Float64Array; m2: Float64Array; sum: Float64Array }> {
  return {
    resultKind: 'number',
    init: (cells) => ({
      ...counted(cells),
      mean: new Float64Array(cells),
      m2: new Float64Array(cells),
      sum: new Float64Array(cells),
    }),
    update: (state, offset, values) => {
      const { n, mean, m2, sum, nodata } = state;
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        const c = offset + i;
        if (v !== v) {
          nodata[c] = 1;
          continue;
        }
        const k = ++n[c]!;
        sum[c]! += v;
        const delta = v - mean[c]!;
        mean[c]! += delta / k;
        m2[c]! += delta * (v - mean[c]!);
      }
    },
    merge: (into, other) => {
      for (let c = 0; c < into.cells; c++) {
        if (other.nodata[c]) into.nodata[c] = 1;
        const nb = other.n[c]!;
        if (nb === 0) continue;
        const na = into.n[c]!;
        const delta = other.mean[c]! - into.mean[c]!;
        const total = na + nb;
        into.mean[c]! += (delta * nb) / total;
        into.m2[c]! += other.m2[c]! + (delta * delta * na * nb) / total;
        into.sum[c]! += other.sum[c]!;
        into.n[c] = total;
      }
    },
    finish: (state, out, offset) => {
      for (let c = 0; c < state.cells; c++) {
        const n = state.n[c]!;
        if ((!ignoreNodata && state.nodata[c]) || n === 0) out[offset + c] = NaN;
        // The mean as sum/count, as the scalar `mean` computes it (same value to the last bit).
        else if (result === 'mean') out[offset + c] = state.sum[c]! / n;
        else {
          const variance = state.m2[c]! / (n - 1);
          // Welford's M2 stays finite where the two-pass form meets an infinity and gives NaN.
          const poisoned = !Number.isFinite(state.sum[c]!);
          out[offset + c] = poisoned ? NaN : result === 'sd' ? Math.sqrt(variance) : variance;
        }
      }
    },
  };
}

/** The value at one position (`array_element`), or the first/last value (`first`, `last`). */
function selecting(
  pick: 'first' | 'last' | number,
  ignoreNodata: boolean,
  length: number,
  returnNodata: boolean,
): StreamingReducer<Counted & { value: Float64Array }> {
  return {
    resultKind: 'number',
    init: (cells) => ({ ...counted(cells), value: new Float64Array(cells).fill(NaN) }),
    update: (state, offset, values, position) => {
      const { value, n } = state;
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        const c = offset + i;
        if (typeof pick === 'number') {
          if (position === pick) value[c] = v;
        } else if (pick === 'first') {
          if (n[c] === 0 && (!ignoreNodata || v === v)) {
            value[c] = v;
            n[c] = 1;
          }
        } else if (!ignoreNodata || v === v) value[c] = v;
      }
    },
    finish: (state, out, offset) => {
      if (typeof pick === 'number' && pick >= length && !returnNodata)
        throw new ProcessingError(
          'ArrayElementNotAvailable',
          'The array has no element with the specified index or label.',
        );
      for (let c = 0; c < state.cells; c++) out[offset + c] = state.value[c]!;
    },
  };
}

/** count of valid values (condition null) or of all values (condition true). */
function counting(all: boolean): StreamingReducer<Counted> {
  return {
    resultKind: 'number',
    init: counted,
    update: (state, offset, values) => {
      for (let i = 0; i < values.length; i++) if (all || Number.isFinite(values[i]!)) state.n[offset + i]!++;
    },
    merge: (into, other) => {
      for (let c = 0; c < into.cells; c++) into.n[c]! += other.n[c]!;
    },
    finish: (state, out, offset) => {
      for (let c = 0; c < state.cells; c++) out[offset + c] = state.n[c]!;
    },
  };
}

/** all / any over booleans with three-valued logic. */
function logical(kind: 'all' | 'any', ignoreNodata: boolean): StreamingReducer<Counted & { seen: Uint8Array }> {
  // Bits: 1 true seen, 2 false seen, 4 nodata seen.
  return {
    resultKind: 'boolean',
    init: (cells) => ({ ...counted(cells), seen: new Uint8Array(cells) }),
    update: (state, offset, values) => {
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        state.seen[offset + i]! |= v !== v ? 4 : v !== 0 ? 1 : 2;
      }
    },
    merge: (into, other) => {
      for (let c = 0; c < into.cells; c++) into.seen[c]! |= other.seen[c]!;
    },
    finish: (state, out, offset) => {
      for (let c = 0; c < state.cells; c++) {
        const s = state.seen[c]!;
        const [decisive, other] = kind === 'all' ? [2, 1] : [1, 2];
        if (s & decisive) out[offset + c] = kind === 'all' ? 0 : 1;
        else if (!ignoreNodata && s & 4 && s & other) out[offset + c] = NaN;
        else out[offset + c] = kind === 'all' ? 1 : 0;
      }
    },
  };
}

const numbersOnly = (kind: CellKind) => kind === 'number' || kind === 'nodata';

export const STREAMING: Partial<
  Record<string, (constants: Args, kind: CellKind, labels: readonly Label[]) => StreamingReducer | undefined>
> = {
  sum: (c, k) => (numbersOnly(k) ? folding('sum', ignores(c)) : undefined),
  product: (c, k) => (numbersOnly(k) ? folding('product', ignores(c)) : undefined),
  min: (c, k) => (numbersOnly(k) ? folding('min', ignores(c)) : undefined),
  max: (c, k) => (numbersOnly(k) ? folding('max', ignores(c)) : undefined),
  mean: (c, k) => (numbersOnly(k) ? moments('mean', ignores(c)) : undefined),
  variance: (c, k) => (numbersOnly(k) ? moments('variance', ignores(c)) : undefined),
  sd: (c, k) => (numbersOnly(k) ? moments('sd', ignores(c)) : undefined),
  first: (c, k, labels) => withKind(selecting('first', ignores(c), labels.length, false), k),
  last: (c, k, labels) => withKind(selecting('last', ignores(c), labels.length, false), k),
  count: (c) =>
    c.condition === null || c.condition === undefined || c.condition === true
      ? counting(c.condition === true)
      : undefined,
  all: (c, k) => (k === 'boolean' || k === 'nodata' ? logical('all', ignores(c)) : undefined),
  any: (c, k) => (k === 'boolean' || k === 'nodata' ? logical('any', ignores(c)) : undefined),
  array_element: (c, k, labels) => {
    const hasIndex = c.index !== undefined && c.index !== null;
    const hasLabel = c.label !== undefined && c.label !== null;
    if (hasIndex === hasLabel) return undefined; // the interpreter raises the named exception
    const position = hasIndex ? (c.index as number) : labels.indexOf(c.label as Label);
    return withKind(selecting(position < 0 ? Infinity : position, false, labels.length, c.return_nodata === true), k);
  },
};

/** A selecting reducer returns values of the kind it reads. */
function withKind<S extends ReducerState>(reducer: StreamingReducer<S>, kind: CellKind): StreamingReducer<S> {
  return { ...reducer, resultKind: kind === 'boolean' ? 'boolean' : 'number' };
}

export const GATHERED: Partial<
  Record<string, (constants: Args, kind: CellKind) => ((values: Float64Array) => number) | undefined>
> = {
  median: (c, k) => {
    if (!numbersOnly(k)) return undefined;
    const ignore = ignores(c);
    return (values) => {
      const present = values.filter((v) => v === v);
      if (present.length === 0 || (!ignore && present.length < values.length)) return NaN;
      return medianOf(present);
    };
  },
};
