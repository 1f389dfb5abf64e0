/**
 * The computation of an AnalyticsTable: each org unit's daily value is the weighted mean of its cells (weights:
 * the fraction of each cell inside it, times the cell's population for `population` weighting; cells without data
 * left out), and each period's statistic is taken over the daily values of its days: the mean, the sum, the
 * minimum, the maximum, and the count of days with a value. Only the periods that hold a changed day are computed,
 * and for them every day of the period is read; the source is read one time chunk at a time, so memory stays
 * bounded by one chunk row of planes whatever the length of the series.
 */
import type { DataCube } from '../processing/cube/cube.ts';
import { dhis2Period } from '../processing/results/dhis2-json.ts';
import type { CellWeights } from '../processing/zonal/rasterize.ts';
import type { ExportPeriodType } from '../exports/periods.ts';
import type { AnalyticsStatistic } from '../resources/analytics-table/schema.ts';
import type { AnalyticsRow } from './table-file.ts';

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
  signal?: AbortSignal;
  progress?: (done: number, total: number) => void;
}

export interface AnalyticsBuild {
  /** The rows of the computed periods. */
  rows: AnalyticsRow[];
  /** The computed periods, as `periodType/pe` keys. */
  periods: Set<string>;
  /** Values read from the source: cells × time steps. */
  cellsRead: number;
  /** First and last day of the source. */
  days: { start: string; end: string } | undefined;
}

export const periodKey = (type: string, pe: string) => `${type}/${pe}`;

/** The accumulators of the computed periods: per period, one slot per org unit. */
interface Accumulators {
  sum: Float64Array;
  count: Float64Array;
  min: Float64Array;
  max: Float64Array;
}

function accumulators(size: number): Accumulators {
  return {
    sum: new Float64Array(size),
    count: new Float64Array(size),
    min: new Float64Array(size).fill(Infinity),
    max: new Float64Array(size).fill(-Infinity),
  };
}

function statistic(stat: AnalyticsStatistic, acc: Accumulators, slot: number): number | null {
  const n = acc.count[slot]!;
  if (stat === 'count') return n;
  if (n === 0) return null;
  if (stat === 'sum') return acc.sum[slot]!;
  if (stat === 'mean') return acc.sum[slot]! / n;
  return stat === 'min' ? acc.min[slot]! : acc.max[slot]!;
}

/** The weights of each org unit's cells, with the population (or another per-cell weight) applied. */
function weightsOf(orgUnits: readonly OrgUnitCells[], cellWeights: ArrayLike<number> | undefined) {
  return orgUnits.map(({ cells }) => {
    if (!cells) return { cells: new Int32Array(0), weights: new Float64Array(0) };
    const weights = Float64Array.from(cells.weights);
    if (cellWeights)
      for (let i = 0; i < weights.length; i++) {
        const w = cellWeights[cells.cells[i]!]!;
        weights[i] = Number.isFinite(w) ? weights[i]! * w : 0;
      }
    return { cells: Int32Array.from(cells.cells), weights };
  });
}

export async function buildAnalytics(input: AnalyticsBuildInput): Promise<AnalyticsBuild> {
  const { cube, orgUnits, periodTypes, statistics } = input;
  const [time, , yDim, xDim] = cube.dimensions;
  if (!time || time.type !== 'temporal' || !yDim || !xDim) throw new Error('the source is not a (t, bands, y, x) cube');
  const instants = time.labels.map((label) => Date.parse(String(label)));
  const days = instants.map((ms) => new Date(ms).toISOString().slice(0, 10));
  const periodsOfStep = instants.map((ms) => periodTypes.map((type) => periodKey(type, dhis2Period(type, ms))));

  // The periods holding a changed day, in first-seen order; then every step that falls in one of them.
  const index = new Map<string, number>();
  days.forEach((day, t) => {
    if (input.changed && !input.changed(day)) return;
    for (const key of periodsOfStep[t]!) if (!index.has(key)) index.set(key, index.size);
  });
  const steps = periodsOfStep.flatMap((keys, t) => (keys.some((k) => index.has(k)) ? [t] : []));
  const units = weightsOf(orgUnits, input.cellWeights);
  const nOu = orgUnits.length;
  const acc = accumulators(index.size * nOu);

  const [ct, , cy, cx] = cube.metadata.chunkShape as [number, number, number, number];
  const ny = yDim.labels.length;
  const nx = xDim.labels.length;
  const wanted = new Set(steps);
  const daily = new Float64Array(nOu);
  let cellsRead = 0;
  const timeChunks = [...new Set(steps.map((t) => Math.floor(t / ct)))];
  for (const [done, it] of timeChunks.entries()) {
    input.signal?.throwIfAborted();
    const t0 = it * ct;
    const length = Math.min(ct, instants.length - t0);
    const planes = new Float32Array(length * ny * nx);
    for (let iy = 0; iy * cy < ny; iy++)
      for (let ix = 0; ix * cx < nx; ix++) {
        const chunk = await cube.source.readChunk([it, 0, iy, ix], input.signal);
        const h = Math.min(cy, ny - iy * cy);
        const w = Math.min(cx, nx - ix * cx);
        for (let k = 0; k < length; k++)
          for (let r = 0; r < h; r++) {
            const from = (k * h + r) * w;
            planes.set(chunk.subarray(from, from + w), k * ny * nx + (iy * cy + r) * nx + ix * cx);
          }
      }
    cellsRead += length * ny * nx;
    for (let k = 0; k < length; k++) {
      const t = t0 + k;
      if (!wanted.has(t)) continue;
      const base = k * ny * nx;
      for (let o = 0; o < nOu; o++) {
        const { cells, weights } = units[o]!;
        let sum = 0;
        let weight = 0;
        for (let i = 0; i < cells.length; i++) {
          const v = planes[base + cells[i]!]!;
          if (v === v) {
            sum += weights[i]! * v;
            weight += weights[i]!;
          }
        }
        daily[o] = weight > 0 ? sum / weight : NaN;
      }
      for (const key of periodsOfStep[t]!) {
        const p = index.get(key);
        if (p === undefined) continue;
        for (let o = 0; o < nOu; o++) {
          const v = daily[o]!;
          if (v !== v) continue;
          const slot = p * nOu + o;
          acc.sum[slot] += v;
          acc.count[slot] += 1;
          if (v < acc.min[slot]!) acc.min[slot] = v;
          if (v > acc.max[slot]!) acc.max[slot] = v;
        }
      }
    }
    input.progress?.(done + 1, timeChunks.length);
  }

  const rows: AnalyticsRow[] = [];
  for (const [key, p] of index) {
    const [periodType, pe] = key.split('/') as [ExportPeriodType, string];
    for (let o = 0; o < nOu; o++)
      for (const stat of statistics)
        rows.push({
          ou: orgUnits[o]!.id,
          periodType,
          pe,
          stat,
          value: statistic(stat, acc, p * nOu + o),
          sourceVersion: input.sourceVersion,
        });
  }
  return {
    rows,
    periods: new Set(index.keys()),
    cellsRead,
    days: days.length > 0 ? { start: days[0]!, end: days.at(-1)! } : undefined,
  };
}
