/**
 * The cube of an ETCCDI index: each output chunk holds every period of a block of cells, computed from the whole
 * daily series of those cells (read from each input at once, laid out on the index's calendar, then reduced in
 * typed arrays, cell loops innermost). Blocks are sized so a series stays within `MAX_BLOCK_VALUES` values.
 */
import { newChunk, type ChunkArray, type CubeMetadata, type CubeSource, type DataCube } from '../../cube/cube.ts';
import { chunkRegion, product } from '../../cube/grid.ts';
import { readRegion } from '../../cube/read.ts';
import type { Calendar, Frequency, Periods } from './calendar.ts';
import type { EtccdiIndex, Variable } from './catalogue.ts';
import { seasonYears } from './gsl.ts';
import { failedPeriods, maskFailed } from './missing.ts';
import type { BaseYears } from './percentiles.ts';

/** Values of one variable's series that one block may hold (8 bytes each). */
export const MAX_BLOCK_VALUES = 1 << 22;

export interface PlannedInput {
  readonly cube: DataCube;
  /** Turns values read from `cube` into the working unit of its variable, in place. */
  readonly convert: (values: Float64Array) => void;
}

export interface IndexPlan {
  readonly index: EtccdiIndex;
  /** The input of each variable, all with the same dimensions. */
  readonly inputs: Readonly<Partial<Record<Variable, PlannedInput>>>;
  readonly axis: number;
  readonly frequency: Frequency;
  readonly calendar: Calendar;
  readonly periods: Periods;
  /** The calendar day of each position of the temporal dimension. */
  readonly dayOfPosition: Int32Array;
  readonly threshold?: number;
  readonly base?: BaseYears;
  /** Whether the cell at a position of the other dimensions (C order) is south of the equator (GSL). */
  readonly south?: (position: readonly number[]) => boolean;
}

export class EtccdiSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly plan: IndexPlan;

  constructor(plan: IndexPlan, metadata: CubeMetadata) {
    this.plan = plan;
    this.metadata = metadata;
  }

  async readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    const { plan } = this;
    const { axis, calendar, periods } = plan;
    const region = chunkRegion(
      this.metadata.dimensions.map((d) => d.labels.length),
      this.metadata.chunkShape,
      index,
    );
    const positions = plan.dayOfPosition.length;
    const pre = product(region.shape.slice(0, axis));
    const post = product(region.shape.slice(axis + 1));
    const cells = pre * post;
    const series: Partial<Record<Variable, Float64Array>> = {};
    const missing = new Uint8Array(calendar.days * cells);
    for (const [variable, { cube, convert }] of Object.entries(plan.inputs) as [Variable, PlannedInput][]) {
      const start = region.start.map((s, i) => (i === axis ? 0 : s));
      const shape = region.shape.map((s, i) => (i === axis ? positions : s));
      const read = await readRegion(cube, start, shape, signal);
      const block = new Float64Array(calendar.days * cells).fill(NaN);
      for (let p = 0; p < pre; p++)
        for (let t = 0; t < positions; t++) {
          const row = plan.dayOfPosition[t]! * cells + p * post;
          const from = (p * positions + t) * post;
          for (let q = 0; q < post; q++) block[row + q] = read[from + q]!;
        }
      convert(block);
      series[variable] = block;
    }
    const blocks = Object.values(series);
    for (let i = 0; i < missing.length; i++) missing[i] = blocks.some((b) => Number.isNaN(b[i]!)) ? 1 : 0;
    const south = this.southOf(region, cells, pre, post);
    const values = plan.index.compute({
      calendar,
      periods,
      span: { first: plan.dayOfPosition[0]!, last: plan.dayOfPosition[positions - 1]! },
      cells,
      series,
      ...(plan.threshold !== undefined ? { threshold: plan.threshold } : {}),
      ...(plan.base ? { base: plan.base } : {}),
      ...(south ? { south } : {}),
    });
    maskFailed(values, this.failed(missing, cells, south));
    const out = newChunk(this.metadata.dtype, product(region.shape));
    const count = periods.count;
    for (let p = 0; p < pre; p++)
      for (let k = 0; k < count; k++) {
        const to = (p * count + k) * post;
        for (let q = 0; q < post; q++) out[to + q] = values[k * cells + p * post + q]!;
      }
    return out;
  }

  /** Which (period, cell) fail the missing-day rule; for GSL, on each cell's hemisphere's year. */
  private failed(missing: Uint8Array, cells: number, south: Uint8Array | undefined): Uint8Array {
    const { calendar, periods, frequency } = this.plan;
    const annual = frequency === 'year';
    if (!south) return failedPeriods(calendar, missing, cells, periods.ofDay, periods.count, annual);
    const firstYear = Number(periods.labels[0]);
    const [north, southern] = [false, true].map((s) =>
      failedPeriods(calendar, missing, cells, seasonYears(calendar, firstYear, periods.count, s), periods.count, true),
    );
    return north!.map((f, i) => (south[i % cells] ? southern![i]! : f));
  }

  private southOf(
    region: { start: number[]; shape: number[] },
    cells: number,
    pre: number,
    post: number,
  ): Uint8Array | undefined {
    const { south, axis } = this.plan;
    if (!south) return undefined;
    const others = region.shape.filter((_, i) => i !== axis);
    const starts = region.start.filter((_, i) => i !== axis);
    const out = new Uint8Array(cells);
    for (let c = 0; c < pre * post; c++) {
      let rest = c;
      const position = others.map(() => 0);
      for (let i = others.length - 1; i >= 0; i--) {
        position[i] = starts[i]! + (rest % others[i]!);
        rest = Math.floor(rest / others[i]!);
      }
      out[c] = south(position) ? 1 : 0;
    }
    return out;
  }
}
