/**
 * The computation of an AnalyticsTable: each org unit's daily value is the weighted mean of its cells (weights:
 * the fraction of each cell inside it, times the cell's population for `population` weighting; cells without data
 * left out), and each period's statistic is taken over the daily values of its days: the mean, the sum, the
 * minimum, the maximum, and the count of days with a value. Only the periods that hold a changed day are computed:
 * a period whose changed days all follow the previous table's last day folds them into that table's running
 * statistics (`open-periods.ts`) and reads those days only; any other computed period reads every day it holds. The
 * source is read one time chunk at a time, so memory stays bounded by one chunk row of planes whatever the length of
 * the series.
 */
import type { DataCube } from '../processing/cube/cube.ts';
import { dhis2Period } from '../periods/dhis2.ts';
import type { CellWeights } from '../processing/zonal/rasterize.ts';
import type { ExportPeriodType } from '../resources/export/schema.ts';
import type { AnalyticsStatistic } from '../resources/analytics-table/schema.ts';
import { accumulators, type Accumulators, type OpenPeriods } from './open-periods.ts';
import { comparePeriodIds, compareText, emptyColumns, type AnalyticsColumns } from './table-file.ts';

export interface OrgUnitCells {
  id: string;
  /** Cells (row * nx + col) and their weights; null for an org unit without geometry. */
  cells: CellWeights | null;
}

export interface AnalyticsBuildInput {
  cube: DataCube;
  sourceVersion: string;
  orgUnits: readonly OrgUnitCells[];
  periodTypes: readonly ExportPeriodType[];
  statistics: readonly AnalyticsStatistic[];
  /** A weight per grid cell multiplying the coverage fractions (population); NaN counts as 0. */
  cellWeights?: ArrayLike<number>;
  /** The days (YYYY-MM-DD) whose values changed since the previous table; absent: every day. */
  changed?: (day: string) => boolean;
  /** The previous table's open periods, which its changed days after `open.end` fold into (with `changed` only). */
  open?: OpenPeriods;
  signal?: AbortSignal;
  progress?: (done: number, total: number) => void;
}

export interface AnalyticsBuild {
  /** The rows of the computed periods, in the contract's order. */
  columns: AnalyticsColumns;
  /** The computed periods, as `periodType/pe` keys. */
  periods: Set<string>;
  /** Values read from the source: cells × time steps of the chunks read (those that hold an org unit's cell). */
  cellsRead: number;
  /** First and last day of the source. */
  days: { start: string; end: string } | undefined;
  /** The running statistics of the periods holding the last day, for the next build to fold into. */
  open: OpenPeriods | undefined;
  /** Computed periods that folded new days into the previous table's statistics, without reading their other days. */
  folded: number;
}

export const periodKey = (type: string, pe: string) => `${type}/${pe}`;

/** A period's statistic; NaN (null in the file) when it has no value. */
function statistic(stat: AnalyticsStatistic, acc: Accumulators, slot: number): number {
  const n = acc.count[slot]!;
  if (stat === 'count') return n;
  if (n === 0) return NaN;
  if (stat === 'sum') return acc.sum[slot]!;
  if (stat === 'mean') return acc.sum[slot]! / n;
  return stat === 'min' ? acc.min[slot]! : acc.max[slot]!;
}

/**
 * The weighted cells of every org unit, grouped by the spatial chunk that holds them (offsets within the chunk), so
 * each chunk is read once per time chunk straight from its decoded array. Population (or another per-cell weight)
 * multiplies the coverage fractions.
 */
interface ChunkCells {
  unit: Int32Array;
  offset: Int32Array;
  weight: Float64Array;
}

function cellsByChunk(
  orgUnits: readonly OrgUnitCells[],
  cellWeights: ArrayLike<number> | undefined,
  grid: { nx: number; ny: number; cy: number; cx: number },
): Map<string, ChunkCells> {
  const { nx, ny, cy, cx } = grid;
  const across = Math.ceil(nx / cx);
  // An incremental build pays this on every run: one pass notes each weighted cell's chunk, offset and weight in
  // flat typed arrays, counting the cells of each chunk, and a second scatters them into per-chunk arrays.
  let total = 0;
  for (const { cells } of orgUnits) total += cells?.cells.length ?? 0;
  const entryUnit = new Int32Array(total);
  const entryChunk = new Int32Array(total);
  const entryOffset = new Int32Array(total);
  const entryWeight = new Float64Array(total);
  const sizes = new Int32Array(across * Math.ceil(ny / cy));
  let n = 0;
  orgUnits.forEach(({ cells }, o) => {
    if (!cells) return;
    for (let i = 0; i < cells.cells.length; i++) {
      const cell = cells.cells[i]!;
      const extra = cellWeights ? cellWeights[cell]! : 1;
      const weight = cells.weights[i]! * (Number.isFinite(extra) ? extra : 0);
      if (weight === 0) continue;
      const r = Math.floor(cell / nx);
      const c = cell - r * nx;
      const iy = Math.floor(r / cy);
      const ix = Math.floor(c / cx);
      const chunk = iy * across + ix;
      entryUnit[n] = o;
      entryChunk[n] = chunk;
      entryOffset[n] = (r - iy * cy) * Math.min(cx, nx - ix * cx) + (c - ix * cx);
      entryWeight[n++] = weight;
      sizes[chunk]! += 1;
    }
  });
  const lists: (ChunkCells & { length: number })[] = Array.from(sizes, (size) => ({
    unit: new Int32Array(size),
    offset: new Int32Array(size),
    weight: new Float64Array(size),
    length: 0,
  }));
  for (let e = 0; e < n; e++) {
    const list = lists[entryChunk[e]!]!;
    list.unit[list.length] = entryUnit[e]!;
    list.offset[list.length] = entryOffset[e]!;
    list.weight[list.length++] = entryWeight[e]!;
  }
  const chunks = new Map<string, ChunkCells>();
  lists.forEach(({ unit, offset, weight }, chunk) => {
    if (unit.length > 0) chunks.set(`${Math.floor(chunk / across)},${chunk % across}`, { unit, offset, weight });
  });
  return chunks;
}

/** One time step of one chunk into the org units' weighted sums: a plain function the JIT optimizes on its own. */
function addPlane(
  data: ArrayLike<number>,
  base: number,
  { unit, offset, weight }: ChunkCells,
  sums: Float64Array,
  weights: Float64Array,
  row: number,
): void {
  for (let e = 0; e < unit.length; e++) {
    const v = data[base + offset[e]!]!;
    if (v === v) {
      const w = weight[e]!;
      const slot = row + unit[e]!;
      sums[slot] += w * v;
      weights[slot] += w;
    }
  }
}

export async function buildAnalytics(input: AnalyticsBuildInput): Promise<AnalyticsBuild> {
  const { cube, orgUnits, periodTypes, statistics } = input;
  const [time, , yDim, xDim] = cube.dimensions;
  if (!time || time.type !== 'temporal' || !yDim || !xDim) throw new Error('the source is not a (t, bands, y, x) cube');
  const instants = time.labels.map((label) => Date.parse(String(label)));
  const days = instants.map((ms) => new Date(ms).toISOString().slice(0, 10));
  const periodsOfStep = instants.map((ms) => periodTypes.map((type) => periodKey(type, dhis2Period(type, ms))));

  const nOu = orgUnits.length;
  const fold = input.changed && input.open && sameUnits(input.open.units, orgUnits) ? input.open : undefined;
  // The periods holding a changed day, in first-seen order; those with a changed day the previous table held are
  // rewritten, and computed from all their days.
  const index = new Map<string, number>();
  const rewritten = new Set<string>();
  days.forEach((day, t) => {
    if (input.changed && !input.changed(day)) return;
    for (const key of periodsOfStep[t]!) {
      if (!index.has(key)) index.set(key, index.size);
      if (!fold || day <= fold.end) rewritten.add(key);
    }
  });
  // The periods holding the last day go with the table: those not computed keep the previous table's statistics,
  // when it has them for this same last day, else they are computed.
  const carried = new Map<string, Accumulators>();
  for (const key of periodsOfStep.at(-1) ?? []) {
    if (index.has(key)) continue;
    const kept = fold && fold.end === days.at(-1) ? fold.periods.get(key) : undefined;
    if (kept) carried.set(key, kept);
    else index.set(key, index.size);
  }
  const acc = accumulators(index.size * nOu);
  // A folded period starts from the previous table's statistics and reads only the days after its last day.
  const folded = new Uint8Array(index.size);
  for (const [key, p] of index) {
    const previous = !rewritten.has(key) && fold?.periods.get(key);
    if (!previous) continue;
    folded[p] = 1;
    for (const name of ['sum', 'count', 'min', 'max'] as const) acc[name].set(previous[name], p * nOu);
  }
  const computes = (key: string, day: string) => {
    const p = index.get(key);
    return p !== undefined && (folded[p] === 0 || day > fold!.end);
  };
  const steps = periodsOfStep.flatMap((keys, t) => (keys.some((k) => computes(k, days[t]!)) ? [t] : []));

  const [ct, , cy, cx] = cube.metadata.chunkShape as [number, number, number, number];
  const ny = yDim.labels.length;
  const nx = xDim.labels.length;
  const chunks = cellsByChunk(orgUnits, input.cellWeights, { nx, ny, cy, cx });
  const wanted = new Set(steps);
  // Per step of a time chunk and org unit: the weighted sum of its valid cells and their weight.
  const sums = new Float64Array(ct * nOu);
  const weights = new Float64Array(ct * nOu);
  let cellsRead = 0;
  const timeChunks = [...new Set(steps.map((t) => Math.floor(t / ct)))];
  const spatial = [...chunks].map(([key, cells]) => ({ at: key.split(',').map(Number) as [number, number], cells }));
  const reads = timeChunks.flatMap((it) => spatial.map((chunk) => ({ it, ...chunk })));
  // One chunk is read (and decoded on a worker thread) ahead, while this thread adds up the one before.
  const read = (i: number) => {
    const { it, at } = reads[i]!;
    const reading = cube.source.readChunk([it, 0, ...at], input.signal);
    reading.catch(() => undefined);
    return reading;
  };
  let ahead = reads.length > 0 ? read(0) : undefined;
  let chunksDone = 0;
  for (let i = 0; i < reads.length; i++) {
    const data = await ahead!;
    ahead = i + 1 < reads.length ? read(i + 1) : undefined;
    const { it, at, cells } = reads[i]!;
    const t0 = it * ct;
    const length = Math.min(ct, instants.length - t0);
    const plane = Math.min(cy, ny - at[0] * cy) * Math.min(cx, nx - at[1] * cx);
    cellsRead += length * plane;
    for (let k = 0; k < length; k++) if (wanted.has(t0 + k)) addPlane(data, k * plane, cells, sums, weights, k * nOu);
    if (i + 1 < reads.length && reads[i + 1]!.it === it) continue;
    // The time chunk is complete: its daily values go into their periods.
    for (let k = 0; k < length; k++) {
      const t = t0 + k;
      if (!wanted.has(t)) continue;
      for (const key of periodsOfStep[t]!) {
        if (!computes(key, days[t]!)) continue;
        const p = index.get(key)!;
        for (let o = 0; o < nOu; o++) {
          const w = weights[k * nOu + o]!;
          if (w === 0) continue;
          const v = sums[k * nOu + o]! / w;
          const slot = p * nOu + o;
          acc.sum[slot] += v;
          acc.count[slot] += 1;
          if (v < acc.min[slot]!) acc.min[slot] = v;
          if (v > acc.max[slot]!) acc.max[slot] = v;
        }
      }
    }
    sums.fill(0);
    weights.fill(0);
    input.progress?.(++chunksDone, timeChunks.length);
  }

  // The rows straight in the contract's order: org units by id, periods by type and time, statistics by name.
  const units = orgUnits.map((_, o) => o).sort((a, b) => compareText(orgUnits[a]!.id, orgUnits[b]!.id));
  const periods = [...index]
    .map(([key, p]) => {
      const [periodType, pe] = key.split('/') as [ExportPeriodType, string];
      return { periodType, pe, p };
    })
    .sort((a, b) => compareText(a.periodType, b.periodType) || comparePeriodIds(a.pe, b.pe));
  const stats = [...statistics].sort(compareText);
  const columns = emptyColumns(units.length * periods.length * stats.length);
  let row = 0;
  for (const o of units)
    for (const { periodType, pe, p } of periods)
      for (const stat of stats) {
        columns.ou[row] = orgUnits[o]!.id;
        columns.periodType[row] = periodType;
        columns.pe[row] = pe;
        columns.stat[row] = stat;
        columns.value[row] = statistic(stat, acc, p * nOu + o);
        columns.sourceVersion[row++] = input.sourceVersion;
      }
  const open = new Map(carried);
  for (const key of periodsOfStep.at(-1) ?? []) {
    const p = index.get(key);
    if (p === undefined) continue;
    const slots = (values: Float64Array) => values.slice(p * nOu, (p + 1) * nOu);
    open.set(key, { sum: slots(acc.sum), count: slots(acc.count), min: slots(acc.min), max: slots(acc.max) });
  }
  return {
    columns,
    periods: new Set(index.keys()),
    cellsRead,
    days: days.length > 0 ? { start: days[0]!, end: days.at(-1)! } : undefined,
    open: days.length > 0 ? { end: days.at(-1)!, units: orgUnits.map((u) => u.id), periods: open } : undefined,
    folded: folded.reduce((n, f) => n + f, 0),
  };
}

const sameUnits = (units: readonly string[], orgUnits: readonly OrgUnitCells[]) =>
  units.length === orgUnits.length && orgUnits.every((u, o) => u.id === units[o]);
