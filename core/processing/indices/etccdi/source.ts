/**
 * The cube of an ETCCDI index: each output chunk holds every period of a block of cells, computed from the whole
 * daily series of those cells (read from each input a time chunk at a time, laid out on the index's calendar, then
 * reduced in typed arrays, cell loops innermost). Blocks are sized so a series stays within `MAX_BLOCK_VALUES`.
 */
import { newChunk, type ChunkArray, type CubeMetadata, type CubeSource, type DataCube } from '../../cube/cube.ts';
import { chunkRegion, product } from '../../cube/grid.ts';
import { readRegion } from '../../cube/read.ts';
import { readAhead } from '../../../read-ahead.ts';
import type { Calendar, Frequency, Periods } from './calendar.ts';
import type { EtccdiIndex, Variable } from './catalogue.ts';
import { seasonYears } from './gsl.ts';
import { failedPeriods, maskFailed } from './missing.ts';
import type { BaseYears } from './percentiles.ts';

/**
 * Values of one variable's series that one block may hold (8 bytes each: 128 MiB). A block reads every stored
 * chunk its cells touch over the whole series, so a stored chunk whose cells n blocks share is decoded n times,
 * and decoding dominates an index's time: the larger the block, the fewer the decodings, within a run's memory.
 */
export const MAX_BLOCK_VALUES = 1 << 24;

/** Time chunks of an input read ahead of the one copied: enough to keep the pool's decoding threads busy. */
const SLABS_AHEAD = 4;

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
    for (const [variable, input] of Object.entries(plan.inputs) as [Variable, PlannedInput][]) {
      const block = await this.readSeries(input, region, pre, post, signal);
      input.convert(block);
      for (let i = 0; i < block.length; i++) if (Number.isNaN(block[i]!)) missing[i] = 1;
      series[variable] = block;
    }
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

  /**
   * The daily block of one input over the cells of `region`: NaN on calendar days the series lacks. The input is
   * read one time chunk at a time, a few ahead (their decoding overlaps with the copy), each copied row by row to
   * its calendar day.
   */
  private async readSeries(
    { cube }: PlannedInput,
    region: { start: number[]; shape: number[] },
    pre: number,
    post: number,
    signal: AbortSignal | undefined,
  ): Promise<Float64Array> {
    const { axis, calendar, dayOfPosition } = this.plan;
    const positions = dayOfPosition.length;
    const cells = pre * post;
    const step = cube.metadata.chunkShape[axis]!;
    const block = new Float64Array(calendar.days * cells).fill(NaN);
    const slab = (k: number) => {
      const start = region.start.map((s, i) => (i === axis ? k * step : s));
      const shape = region.shape.map((s, i) => (i === axis ? Math.min(step, positions - k * step) : s));
      return readRegion(cube, start, shape, signal);
    };
    let k = 0;
    for await (const read of readAhead(Math.ceil(positions / step), slab, SLABS_AHEAD)) {
      const first = k++ * step;
      const length = Math.min(step, positions - first);
      for (let p = 0; p < pre; p++)
        for (let t = 0; t < length; t++) {
          const from = (p * length + t) * post;
          block.set(read.subarray(from, from + post), dayOfPosition[first + t]! * cells + p * post);
        }
    }
    return block;
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
