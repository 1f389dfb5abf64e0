/**
 * Zonal statistics over a raster cube: one pass over the cube's chunks, reading only the chunks whose pixels
 * some geometry covers, feeding each covered pixel's values (all time steps, bands, ... in the chunk) to the
 * geometry's reducer state. The sparse table (`table.ts`) says which pixels; it is indexed by spatial chunk once,
 * so every chunk finds its entries directly. The weighted reducers read chunks on the process's worker threads,
 * several at once; reducer plans read them here. Results: one value per geometry and per cell of the other
 * dimensions, plus the total and valid pixel counts when asked.
 */
import type { DataCube } from '../cube/cube.ts';
import { advance, chunkCounts, chunkIndices, chunkRegion, product, stridesOf } from '../cube/grid.ts';
import type { ReducerPlan } from '../kernels/reducer-plan.ts';
import { processPool } from '../../workers/pool.ts';
import { asEngineError, forTransfer } from '../cube/encoded-chunk.ts';
import { ZONAL_CHUNK, type ZonalChunkInput, type ZonalChunkOutput } from './chunk-task.ts';
import type { ZonalTable } from './table.ts';
import {
  applyCounts,
  copySlots,
  foldPlan,
  runPartials,
  selectRuns,
  type PixelRuns,
  type WeightedReducer,
} from './weighted.ts';
import { spansItsBuffer } from '../../buffers.ts';
import { sharedMemoryOf } from '../kernels/wasm/shared-memory.ts';

export type ZonalReducer = { kind: 'plan'; plan: ReducerPlan } | { kind: 'weighted'; reducer: WeightedReducer };

export interface ZonalResult {
  /** Geometry-major: `values[g * others + o]`. */
  values: Float64Array;
  totals: Float64Array;
  valid: Float64Array;
  /** Cells of the other (non-spatial) dimensions. */
  others: number;
}

/** The table's entries of one spatial chunk, as parallel typed arrays. */
interface ChunkEntries {
  geometry: Int32Array;
  position: Int32Array;
  row: Int32Array;
  col: Int32Array;
  weight: Float64Array;
}

/** The table's entries grouped by the spatial chunk (row chunk, column chunk) they fall in. */
function bySpatialChunk(table: ZonalTable, rowsPerChunk: number, colsPerChunk: number): Map<number, ChunkEntries> {
  const { grid } = table;
  const chunkColumns = Math.ceil(grid.nx / colsPerChunk);
  const counts = new Int32Array(Math.ceil(grid.ny / rowsPerChunk) * chunkColumns);
  const keys = table.entries.map((entry) => {
    if (!entry) return undefined;
    const k = new Int32Array(entry.cells.length);
    for (let i = 0; i < k.length; i++) {
      const cell = entry.cells[i]!;
      const key =
        Math.floor(Math.floor(cell / grid.nx) / rowsPerChunk) * chunkColumns +
        Math.floor((cell % grid.nx) / colsPerChunk);
      k[i] = key;
      counts[key]!++;
    }
    return k;
  });
  const groups = new Map<number, ChunkEntries & { filled: number }>();
  counts.forEach((n, key) => {
    if (n > 0)
      groups.set(key, {
        geometry: new Int32Array(n),
        position: new Int32Array(n),
        row: new Int32Array(n),
        col: new Int32Array(n),
        weight: new Float64Array(n),
        filled: 0,
      });
  });
  table.entries.forEach((entry, geometry) => {
    if (!entry) return;
    const k = keys[geometry]!;
    for (let position = 0; position < entry.cells.length; position++) {
      const cell = entry.cells[position]!;
      const group = groups.get(k[position]!)!;
      const i = group.filled++;
      group.geometry[i] = geometry;
      group.position[i] = position;
      group.row[i] = Math.floor(cell / grid.nx);
      group.col[i] = cell % grid.nx;
      group.weight[i] = entry.weights[position]!;
    }
  });
  return groups;
}

/**
 * The entries in the order of their offsets, ties in entry order. Offsets within a spatial chunk's plane are
 * few, so a counting sort orders them in one pass; a comparator call per comparison costs more than the rest of
 * the runs' building. Other layouts (x and y not the innermost dimensions) fall back to a comparison sort.
 */
function byOffset(bases: Int32Array): Int32Array {
  const n = bases.length;
  let largest = 0;
  for (let e = 0; e < n; e++) largest = Math.max(largest, bases[e]!);
  if (largest > 16 * n + 65536)
    return new Int32Array(n).map((_, e) => e).sort((a, b) => bases[a]! - bases[b]! || a - b);
  const next = new Int32Array(largest + 2);
  for (let e = 0; e < n; e++) next[bases[e]! + 1]!++;
  for (let b = 1; b < next.length; b++) next[b]! += next[b - 1]!;
  const order = new Int32Array(n);
  for (let e = 0; e < n; e++) order[next[bases[e]!]!++] = e;
  return order;
}

/**
 * Runs of a chunk's pixels: consecutive pixels of one geometry on one row with one weight (all interior pixels
 * of a polygon; a boundary pixel with a fraction is a run of its own), so that a plane is summed over
 * contiguous memory without an index per pixel. With `contiguous` false (x is not the chunk's innermost
 * dimension) every pixel is a run. The runs are in the order of their offsets, whatever their geometry, so
 * that a plane is read forwards as memory prefetches it; each geometry's runs keep their order, and so the order
 * their partials are added in. With `pixelWeights` (a mean or a sum) and cells of fractional weight (coverage),
 * a run is every consecutive pixel of one geometry on one row whatever its weight, of weight 1, with each pixel's
 * weight in `pixelWeight`: a polygon's row is one run, not one per boundary cell. The runs are in shared memory:
 * worker threads read them without a copy.
 */
export function pixelRuns(
  entries: ChunkEntries,
  bases: Int32Array,
  others: number,
  contiguous: boolean,
  pixelWeights = false,
): PixelRuns {
  const n = bases.length;
  const base = new Int32Array(n);
  const length = new Int32Array(n);
  const weight = new Float64Array(n);
  const cell = new Int32Array(n);
  const perPixel = pixelWeights && contiguous && entries.weight.some((w) => w !== 1);
  const pixelWeight = perPixel ? new Float64Array(new SharedArrayBuffer(n * 8)) : undefined;
  const order = byOffset(bases);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const e = order[i]!;
    const last = count - 1;
    if (pixelWeight) pixelWeight[i] = entries.weight[e]!;
    if (
      contiguous &&
      count > 0 &&
      entries.geometry[e] === entries.geometry[order[i - 1]!] &&
      (pixelWeight || entries.weight[e] === weight[last]) &&
      bases[e] === base[last]! + length[last]!
    ) {
      length[last]!++;
      continue;
    }
    base[count] = bases[e]!;
    length[count] = 1;
    weight[count] = pixelWeight ? 1 : entries.weight[e]!;
    cell[count] = entries.geometry[e]! * others;
    count++;
  }
  const shared = new SharedArrayBuffer(count * (8 + 3 * 4));
  const runs: PixelRuns = {
    weight: new Float64Array(shared, 0, count),
    base: new Int32Array(shared, count * 8, count),
    length: new Int32Array(shared, count * 12, count),
    cell: new Int32Array(shared, count * 16, count),
  };
  runs.weight.set(weight.subarray(0, count));
  runs.base.set(base.subarray(0, count));
  runs.length.set(length.subarray(0, count));
  runs.cell.set(cell.subarray(0, count));
  // Runs cover their pixels in order, so run r's first pixel weight is at the sum of the lengths before it.
  return pixelWeight ? { ...runs, pixelWeight } : runs;
}

/** What a spatial chunk's table entries are in a chunk of a given layout: each entry's offset, and the runs. */
interface ChunkLayout {
  bases: Int32Array;
  runs: PixelRuns;
}

function chunkLayout(
  entries: ChunkEntries,
  start: readonly number[],
  strides: readonly number[],
  x: number,
  y: number,
  others: number,
  pixelWeights: boolean,
): ChunkLayout {
  const { row, col } = entries;
  const bases = new Int32Array(row.length);
  const [y0, x0, sy, sx] = [start[y]!, start[x]!, strides[y]!, strides[x]!];
  for (let e = 0; e < bases.length; e++) bases[e] = (row[e]! - y0) * sy + (col[e]! - x0) * sx;
  return { bases, runs: pixelRuns(entries, bases, others, sx === 1, pixelWeights) };
}

/**
 * The chunk for a task of the pool: as stored (its bytes, decoded by the worker), or else without a copy, lent
 * from shared memory (with the WebAssembly memory it lies in, if it does) or read and transferred.
 */
async function taskChunk(
  cube: DataCube,
  index: number[],
  signal: AbortSignal | undefined,
): Promise<{ chunk: ZonalChunkInput['chunk']; transfer: ArrayBuffer[] }> {
  const source = cube.source;
  if (source.encodedChunk) {
    const { chunk, transfer } = forTransfer(await source.encodedChunk(index, signal));
    return { chunk: { encoded: chunk }, transfer };
  }
  const lent = await source.lendChunk?.(index, signal);
  if (lent?.buffer instanceof SharedArrayBuffer) {
    const memory = sharedMemoryOf(lent);
    return { chunk: memory ? { values: lent, memory } : { values: lent }, transfer: [] };
  }
  const values = await source.readChunk(index, signal);
  return { chunk: { values }, transfer: spansItsBuffer(values) ? [values.buffer as ArrayBuffer] : [] };
}

export async function zonalAggregate(
  cube: DataCube,
  table: ZonalTable,
  reducer: ZonalReducer,
  options: { counts?: boolean; signal?: AbortSignal } = {},
): Promise<ZonalResult> {
  const { signal } = options;
  const counts = options.counts ?? false;
  const { grid } = table;
  const shape = cube.shape;
  const chunkShape = cube.metadata.chunkShape;
  const { xAxis: x, yAxis: y } = grid;
  const otherAxes = shape.flatMap((_, i) => (i === x || i === y ? [] : [i]));
  const others = product(otherAxes.map((i) => shape[i]!));
  const G = table.entries.length;
  const otherStrides = stridesOf(otherAxes.map((i) => shape[i]!));
  const groups = bySpatialChunk(table, chunkShape[y]!, chunkShape[x]!);
  const chunkColumns = Math.ceil(grid.nx / chunkShape[x]!);
  // A plan keeps a state per geometry (its positions are the geometry's pixels); weighted reducers keep one
  // state for every geometry × other cell.
  const states =
    reducer.kind === 'plan'
      ? table.entries.map((entry) =>
          reducer.plan.init(
            others,
            Array.from({ length: entry?.cells.length ?? 0 }, (_, i) => i),
          ),
        )
      : [];
  const weighted = reducer.kind === 'weighted' ? reducer.reducer : undefined;
  const weightedState = weighted?.init(G * others);
  // Runs with a weight per pixel: only the sums of a mean or a sum read them (`runPartials`).
  const pixelWeights = (weighted?.kind === 'mean' || weighted?.kind === 'sum') && !counts;
  const totals = new Float64Array(G * others);
  const valid = new Float64Array(G * others);
  // Layouts by spatial chunk and strides: every chunk along the other dimensions reuses its spatial chunk's.
  const layouts = new Map<string, ChunkLayout>();
  // Per box of the other dimensions' cells: the geometries some chunk over it reached already (`foldPlan`).
  const begunByBox = new Map<string, Uint8Array>();
  // Weighted reducers read chunks on the pool's workers, several at once; their partials are added in chunk
  // order, so that the results are the same bits whatever thread read which chunk.
  const pool = processPool();
  const depth = 2 * Math.max(1, pool.size);
  const inFlight: { partials: Promise<ZonalChunkOutput>; add: (output: ZonalChunkOutput) => void }[] = [];
  const addInOrder = async (keep: number) => {
    while (inFlight.length > keep) {
      const next = inFlight.shift()!;
      next.add(await next.partials);
    }
  };
  for (const index of chunkIndices(chunkCounts(shape, chunkShape))) {
    const spatial = index[y]! * chunkColumns + index[x]!;
    const entries = groups.get(spatial);
    if (!entries) continue;
    signal?.throwIfAborted();
    const region = chunkRegion(shape, chunkShape, index);
    const strides = stridesOf(region.shape);
    // The chunk's box of the other dimensions: offsets in the chunk and indices among all other cells.
    const boxShape = otherAxes.map((i) => region.shape[i]!);
    const boxCells = product(boxShape);
    const offsets = new Int32Array(boxCells);
    const targets = new Int32Array(boxCells);
    const position = boxShape.map(() => 0);
    for (let b = 0; b < boxCells; b++) {
      let offset = 0;
      let target = 0;
      otherAxes.forEach((axis, k) => {
        offset += position[k]! * strides[axis]!;
        target += (region.start[axis]! + position[k]!) * otherStrides[k]!;
      });
      offsets[b] = offset;
      targets[b] = target;
      advance(position, boxShape);
    }
    const layoutKey = `${spatial}:${strides[y]}:${strides[x]}`;
    let layout = layouts.get(layoutKey);
    if (!layout) {
      layout = chunkLayout(entries, region.start, strides, x, y, others, pixelWeights);
      layouts.set(layoutKey, layout);
    }
    const { runs } = layout;
    if (weighted) {
      const { chunk, transfer } = await taskChunk(cube, index, signal);
      // Valid counts are added per run here, so with them every run's partials come back.
      let fold: ZonalChunkInput['fold'];
      if (!counts) {
        const boxKey = otherAxes.map((axis) => region.start[axis]).join(',');
        let begun = begunByBox.get(boxKey);
        if (!begun) begunByBox.set(boxKey, (begun = new Uint8Array(G)));
        fold = foldPlan(runs, others, begun);
      }
      const input: ZonalChunkInput = {
        chunk,
        runs,
        offsets,
        kind: weighted.kind,
        finite: counts,
        ...(fold ? { fold } : {}),
      };
      const partials = pool.run(ZONAL_CHUNK, input, { transfer, ...(signal ? { signal } : {}) }).catch((err) => {
        throw asEngineError(err);
      });
      // Awaited in order below; a failure surfaces there, not as an unhandled rejection before.
      partials.catch(() => undefined);
      inFlight.push({
        partials,
        add: (output) => {
          if ('partials' in output) {
            weighted.apply(weightedState!, output.partials, runs, targets);
            if (counts) applyCounts(totals, valid, output.partials, runs, targets);
            return;
          }
          copySlots(weightedState!, output.local, fold!.geometries, others, targets);
          weighted.apply(weightedState!, output.rest, selectRuns(runs, fold!.rest), targets);
        },
      });
      await addInOrder(depth - 1);
      continue;
    }
    // A reducer plan runs here, on the chunk: read only, so a source that can lend its chunk saves the copy.
    const chunk = cube.source.lendChunk
      ? await cube.source.lendChunk(index, signal)
      : await cube.source.readChunk(index, signal);
    if (counts) applyCounts(totals, valid, runPartials('count', chunk, runs, offsets, true), runs, targets);
    // Runs of consecutive targets, fed to the reducers in one call each.
    const targetRuns: [number, number][] = [];
    for (let b = 0; b < boxCells; b++) {
      if (b > 0 && targets[b] === targets[b - 1]! + 1) targetRuns[targetRuns.length - 1]![1]++;
      else targetRuns.push([b, 1]);
    }
    const { geometry, position: positions } = entries;
    const { bases } = layout;
    const values = new Float64Array(boxCells);
    // One run over the whole box is the usual case (one dimension besides x and y, or whole chunks of them).
    const slices = targetRuns.map(([from, length]) => values.subarray(from, from + length));
    const plan = (reducer as { plan: ReducerPlan }).plan;
    for (let e = 0; e < geometry.length; e++) {
      const base = bases[e]!;
      for (let b = 0; b < boxCells; b++) values[b] = chunk[base + offsets[b]!]!;
      const state = states[geometry[e]!]!;
      for (let k = 0; k < targetRuns.length; k++)
        plan.update(state, targets[targetRuns[k]![0]]!, slices[k]!, positions[e]!);
    }
  }
  await addInOrder(0);
  const out = new Float64Array(G * others);
  const part = new Float64Array(others);
  for (let g = 0; g < G; g++) {
    if (!table.entries[g]) {
      out.fill(NaN, g * others, (g + 1) * others);
      continue;
    }
    if (reducer.kind === 'plan') await reducer.plan.finish(states[g], part);
    else reducer.reducer.finish(weightedState!, part, g * others);
    out.set(part, g * others);
  }
  return { values: out, totals, valid, others };
}
