/**
 * Zonal statistics over a raster cube: one pass over the cube's chunks, reading only the chunks whose pixels
 * some geometry covers, feeding each covered pixel's values (all time steps, bands, ... in the chunk) to the
 * geometry's reducer state. The sparse table (`table.ts`) says which pixels; it is indexed by spatial chunk once,
 * so every chunk finds its entries directly. Results: one value per geometry and per cell of the other
 * dimensions, plus the total and valid pixel counts when asked.
 */
import type { DataCube } from '../cube/cube.ts';
import { advance, chunkCounts, chunkIndices, chunkRegion, product, stridesOf } from '../cube/grid.ts';
import type { ReducerPlan } from '../kernels/reducer-plan.ts';
import type { ZonalTable } from './table.ts';
import type { PixelRuns, WeightedReducer } from './weighted.ts';

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

/** Runs of pixels accumulated together over all planes of a chunk. */
const BLOCK = 256;

/**
 * Runs of a chunk's pixels: consecutive pixels of one geometry on one row with one weight (all interior pixels
 * of a polygon; a boundary pixel with a fraction is a run of its own), so that a plane is summed over
 * contiguous memory without an index per pixel. With `contiguous` false (x is not the chunk's innermost
 * dimension) every pixel is a run.
 */
export function pixelRuns(entries: ChunkEntries, bases: Int32Array, others: number, contiguous: boolean): PixelRuns {
  const n = bases.length;
  const runs: PixelRuns = {
    base: new Int32Array(n),
    length: new Int32Array(n),
    weight: new Float64Array(n),
    cell: new Int32Array(n),
  };
  let count = 0;
  for (let e = 0; e < n; e++) {
    const last = count - 1;
    if (
      contiguous &&
      count > 0 &&
      entries.geometry[e] === entries.geometry[e - 1] &&
      entries.weight[e] === runs.weight[last] &&
      bases[e] === runs.base[last]! + runs.length[last]!
    ) {
      runs.length[last]!++;
      continue;
    }
    runs.base[count] = bases[e]!;
    runs.length[count] = 1;
    runs.weight[count] = entries.weight[e]!;
    runs.cell[count] = entries.geometry[e]! * others;
    count++;
  }
  return {
    base: runs.base.subarray(0, count),
    length: runs.length.subarray(0, count),
    weight: runs.weight.subarray(0, count),
    cell: runs.cell.subarray(0, count),
  };
}

export async function zonalAggregate(
  cube: DataCube,
  table: ZonalTable,
  reducer: ZonalReducer,
  options: { counts?: boolean; signal?: AbortSignal } = {},
): Promise<ZonalResult> {
  const { signal } = options;
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
  const weighted = reducer.kind === 'weighted' ? reducer.reducer.init(G * others) : undefined;
  const totals = new Float64Array(G * others);
  const valid = new Float64Array(G * others);
  for (const index of chunkIndices(chunkCounts(shape, chunkShape))) {
    const entries = groups.get(index[y]! * chunkColumns + index[x]!);
    if (!entries) continue;
    signal?.throwIfAborted();
    // Read only: a source that can lend its chunk saves the copy.
    const chunk = cube.source.lendChunk
      ? await cube.source.lendChunk(index, signal)
      : await cube.source.readChunk(index, signal);
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
    // Runs of consecutive targets, fed to the reducers in one call each.
    const runs: [number, number][] = [];
    for (let b = 0; b < boxCells; b++) {
      if (b > 0 && targets[b] === targets[b - 1]! + 1) runs[runs.length - 1]![1]++;
      else runs.push([b, 1]);
    }
    const { row, col, geometry, position: positions } = entries;
    const bases = Int32Array.from(
      row,
      (r, e) => (r - region.start[y]!) * strides[y]! + (col[e]! - region.start[x]!) * strides[x]!,
    );
    if (weighted || options.counts) {
      const runs = pixelRuns(entries, bases, others, strides[x] === 1);
      // Plane by plane (time step, band, ...) over blocks of runs: the runs stay in cache while each plane's
      // values of the block are close together.
      for (let r0 = 0; r0 < runs.base.length; r0 += BLOCK)
        for (let b = 0; b < boxCells; b++) {
          const r1 = Math.min(runs.base.length, r0 + BLOCK);
          if (weighted && reducer.kind === 'weighted')
            reducer.reducer.accumulate(weighted, chunk, runs, offsets[b]!, targets[b]!, r0, r1);
          if (!options.counts) continue;
          const target = targets[b]!;
          for (let r = r0; r < r1; r++) {
            const at = runs.cell[r]! + target;
            const w = runs.weight[r]!;
            for (let k = runs.base[r]! + offsets[b]!, end = k + runs.length[r]!; k < end; k++) {
              totals[at]! += w;
              // Valid: finite (is_valid).
              if (chunk[k]! - chunk[k]! === 0) valid[at]! += w;
            }
          }
        }
    }
    if (!weighted) {
      const values = new Float64Array(boxCells);
      // One run over the whole box is the usual case (one dimension besides x and y, or whole chunks of them).
      const slices = runs.map(([from, length]) => values.subarray(from, from + length));
      for (let e = 0; e < geometry.length; e++) {
        const base = bases[e]!;
        for (let b = 0; b < boxCells; b++) values[b] = chunk[base + offsets[b]!]!;
        const state = states[geometry[e]!]!;
        for (let k = 0; k < runs.length; k++)
          (reducer as { plan: ReducerPlan }).plan.update(state, targets[runs[k]![0]]!, slices[k]!, positions[e]!);
      }
    }
  }
  const out = new Float64Array(G * others);
  const part = new Float64Array(others);
  for (let g = 0; g < G; g++) {
    if (!table.entries[g]) {
      out.fill(NaN, g * others, (g + 1) * others);
      continue;
    }
    if (reducer.kind === 'plan') await reducer.plan.finish(states[g], part);
    else reducer.reducer.finish(weighted!, part, g * others);
    out.set(part, g * others);
  }
  return { values: out, totals, valid, others };
}
