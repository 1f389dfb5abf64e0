/**
 * The cube of an ETCCDI index: each output chunk holds every period of a block of cells, computed from the daily
 * series of those cells (read from each input a time chunk at a time, laid out on the index's calendar, then
 * reduced in typed arrays, cell loops innermost), a few whole years at a time in order, or whole for the indices
 * that need it. Blocks are sized so a series stays within `MAX_BLOCK_VALUES`.
 */
import { newChunk, type ChunkArray, type CubeMetadata, type CubeSource, type DataCube } from '../../cube/cube.ts';
import { chunkRegion, product } from '../../cube/grid.ts';
import { readRegion } from '../../cube/read.ts';
import { readAhead } from '../../../read-ahead.ts';
import type { Conversion } from '../../units.ts';
import { BufferPool } from './buffers.ts';
import { calendarOf, DAY_MS, periodsOf, type Calendar, type Frequency, type Periods } from './calendar.ts';
import type { Carried, DayByDayInput, EtccdiIndex, RunsOfYears, Variable } from './catalogue.ts';
import { seasonYears } from './gsl.ts';
import { failedPeriods, maskFailed, MissingTally } from './missing.ts';
import type { BaseYears } from './percentiles.ts';
import { Extreme, type PeriodReduction } from './reductions.ts';
import type { SeriesSpan } from './spells.ts';
import { spansItsBuffer } from '../../../buffers.ts';

/**
 * Values of one variable's series that one block may hold (8 bytes each: 128 MiB). A block reads every stored
 * chunk its cells touch over the whole series, so a stored chunk whose cells n blocks share is decoded n times,
 * and decoding dominates an index's time: the larger the block, the fewer the decodings, within a run's memory.
 */
export const MAX_BLOCK_VALUES = 1 << 24;

/** Days of a leap year: a stretch of whole years holds at most this many a year. */
export const LONGEST_YEAR = 366;

/** The calendar years a run of one year holds: its own, and the next when it reads ahead. */
export const yearsHeld = ({ ahead }: RunsOfYears) => (ahead > 0 ? 2 : 1);

/** Time chunks of an input read ahead of the one copied: enough to keep the pool's decoding threads busy. */
const SLABS_AHEAD = 4;

export interface PlannedInput {
  readonly cube: DataCube;
  /** From the unit of `cube`'s values to the working unit of its variable. */
  readonly conversion: Conversion;
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

/** A part of the series computed at once, on its own calendar of whole years. */
interface Stretch {
  readonly calendar: Calendar;
  /** Its own periods: of its own years, not of the days it reads ahead. */
  readonly periods: Periods;
  /** Its own years, first and last. */
  readonly years: readonly [number, number];
  /** The days of its calendar computed: the series' (its first, its last) or its own years'. */
  readonly span: SeriesSpan;
  /** The positions of the temporal dimension it reads, `from` to `to` (excluded), days ahead included. */
  readonly from: number;
  readonly to: number;
  /** Days from the plan's calendar's first to its own. */
  readonly shift: number;
  /** The plan's period that is its first. */
  readonly firstPeriod: number;
}

/**
 * Values of one time chunk of an input over a block's cells: `length` days a row, the stretch's from `skip` on;
 * they are the positions `first` to `first + count` (excluded) of the temporal dimension.
 */
interface Slab {
  readonly values: ChunkArray;
  readonly length: number;
  readonly skip: number;
  readonly first: number;
  readonly count: number;
}

export class EtccdiSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly plan: IndexPlan;
  private readonly seriesBuffers = new BufferPool<Float64Array>(Float64Array);
  private readonly missingBuffers = new BufferPool<Uint8Array>(Uint8Array);

  constructor(plan: IndexPlan, metadata: CubeMetadata) {
    this.plan = plan;
    this.metadata = metadata;
  }

  async readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    const { periods } = this.plan;
    const region = chunkRegion(
      this.metadata.dimensions.map((d) => d.labels.length),
      this.metadata.chunkShape,
      index,
    );
    const pre = product(region.shape.slice(0, this.plan.axis));
    const post = product(region.shape.slice(this.plan.axis + 1));
    const cells = pre * post;
    // Periods of years the series lacks entirely stay without a value, as the missing-day rule would leave them.
    const values = new Float64Array(periods.count * cells).fill(NaN);
    let carried: Carried = {};
    let lastYear = NaN;
    for (const stretch of this.stretches(cells)) {
      // Over years the series lacks entirely nothing carries: their days are missing, and end every spell.
      if (stretch.years[0] !== lastYear + 1) carried = {};
      lastYear = stretch.years[1];
      const part = await this.computeStretch(stretch, region, pre, post, carried, signal);
      values.set(part, stretch.firstPeriod * cells);
    }
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
   * The parts of the series computed at once, in order: the whole series, or for an index computed in runs of
   * years (`EtccdiIndex.runs`), runs of whole years of `cells` cells within `MAX_BLOCK_VALUES` (so blocks may span
   * more cells), each reading the days ahead it needs.
   */
  private *stretches(cells: number): Generator<Stretch> {
    const { calendar, dayOfPosition, periods, frequency, index } = this.plan;
    const positions = dayOfPosition.length;
    const series = { first: dayOfPosition[0]!, last: dayOfPosition[positions - 1]! };
    const yearOf = (position: number) => calendar.year[dayOfPosition[position]!]!;
    if (!index.runs) {
      const years = [yearOf(0), yearOf(positions - 1)] as const;
      yield { calendar, periods, years, span: series, from: 0, to: positions, shift: 0, firstPeriod: 0 };
      return;
    }
    const { ahead } = index.runs;
    const held = yearsHeld(index.runs);
    const count = Math.max(1, Math.floor(MAX_BLOCK_VALUES / (LONGEST_YEAR * cells)) - (held - 1));
    for (let from = 0; from < positions;) {
      const firstYear = yearOf(from);
      let own = from + 1;
      while (own < positions && yearOf(own) < firstYear + count) own++;
      const lastYear = yearOf(own - 1);
      const ownEnd = Date.UTC(lastYear + 1, 0, 1) / DAY_MS - 1 - calendar.firstDay;
      let to = own;
      while (to < positions && dayOfPosition[to]! <= ownEnd + ahead) to++;
      const [first, lastOwn, last] = [from, own - 1, to - 1].map((p) => calendar.firstDay + dayOfPosition[p]!) as [
        number,
        number,
        number,
      ];
      const part = calendarOf(first, last);
      const shift = part.firstDay - calendar.firstDay;
      yield {
        calendar: part,
        periods: periodsOf(part, frequency, first, lastOwn),
        years: [firstYear, lastYear],
        span: {
          first: from === 0 ? series.first - shift : 0,
          last: own === positions ? series.last - shift : ownEnd - shift,
        },
        from,
        to,
        shift,
        firstPeriod: periods.ofDay[dayOfPosition[from]!]!,
      };
      from = own;
    }
  }

  /** The index's values over the periods of `stretch`, `cells` a period, the missing-day rule applied. */
  private async computeStretch(
    stretch: Stretch,
    region: { start: number[]; shape: number[] },
    pre: number,
    post: number,
    carried: Carried,
    signal: AbortSignal | undefined,
  ): Promise<Float64Array> {
    const { plan } = this;
    const { calendar, periods } = stretch;
    const cells = pre * post;
    if (plan.index.byDay) return this.reduceByDay(plan.index.byDay, stretch, region, pre, post, signal);
    const length = calendar.days * cells;
    // Calendar days the stretch lacks (before the series' first label, after its last, or between) are missing.
    const lacking = new Uint8Array(calendar.days).fill(1);
    for (let i = stretch.from; i < stretch.to; i++) lacking[plan.dayOfPosition[i]! - stretch.shift] = 0;
    const missingDays = lacking.slice();
    const missing = this.missingBuffers.take(length).fill(0);
    for (let d = 0; d < calendar.days; d++) if (lacking[d]) missing.fill(1, d * cells, (d + 1) * cells);
    const series: Partial<Record<Variable, Float64Array>> = {};
    try {
      for (const [variable, input] of Object.entries(plan.inputs) as [Variable, PlannedInput][]) {
        const block = this.seriesBuffers.take(length);
        series[variable] = block;
        await this.readSeries(input, stretch, region, pre, post, { block, lacking, missing, missingDays }, signal);
      }
      const south = this.southOf(region, cells, pre, post);
      const values = plan.index.compute({
        calendar,
        periods,
        span: stretch.span,
        cells,
        series,
        carried,
        ...(plan.threshold !== undefined ? { threshold: plan.threshold } : {}),
        ...(plan.base ? { base: plan.base } : {}),
        ...(south ? { south } : {}),
      });
      return maskFailed(values, this.failed(stretch, missing, missingDays, cells, south));
    } finally {
      this.seriesBuffers.give(...Object.values(series));
      this.missingBuffers.give(missing);
    }
  }

  /**
   * Fills `block` with the daily series of one input over the cells of `region` and the days of `stretch`, in the
   * working unit, NaN on the calendar days it `lacking`, and marks its NaNs in `missing` and their days in
   * `missingDays`. The input is read one time chunk at a time, a few ahead (their
   * decoding overlaps with the copy), each copied row by row to its calendar day.
   */
  private async readSeries(
    { cube, conversion }: PlannedInput,
    { calendar, from, to, shift }: Stretch,
    region: { start: number[]; shape: number[] },
    pre: number,
    post: number,
    {
      block,
      lacking,
      missing,
      missingDays,
    }: Record<'lacking' | 'missing' | 'missingDays', Uint8Array> & {
      block: Float64Array;
    },
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { dayOfPosition } = this.plan;
    const cells = pre * post;
    for (let d = 0; d < calendar.days; d++) if (lacking[d]) block.fill(NaN, d * cells, (d + 1) * cells);
    for await (const slab of this.slabs(cube, from, to, region, signal))
      for (let t = 0; t < slab.count; t++) {
        const day = dayOfPosition[slab.first + t]! - shift;
        if (copyDay(slab, t, pre, post, conversion, block, missing, day * cells)) missingDays[day] = 1;
      }
  }

  /**
   * The values of an index reduced day by day over the periods of `stretch`, the missing-day rule applied: its
   * input's time chunks are read as for a block, but each day's row goes to the reduction and the missing-day
   * tally as it is read, in the working unit, and no block is filled.
   */
  private async reduceByDay(
    byDay: (input: DayByDayInput) => PeriodReduction,
    { calendar, periods, from, to, shift }: Stretch,
    region: { start: number[]; shape: number[] },
    pre: number,
    post: number,
    signal: AbortSignal | undefined,
  ): Promise<Float64Array> {
    const { dayOfPosition, inputs, threshold, frequency } = this.plan;
    const [{ cube, conversion }] = Object.values(inputs) as [PlannedInput];
    const cells = pre * post;
    const reduction = byDay({ cells, periods, ...(threshold !== undefined ? { threshold } : {}) });
    const tally = new MissingTally(calendar, cells, periods.ofDay, periods.count, frequency === 'year');
    const row = new Float64Array(cells);
    const gaps = new Uint8Array(cells);
    // Calendar days the stretch lacks are missing in every cell.
    const lacking = new Uint8Array(cells).fill(1);
    let untallied = 0;
    // Without a conversion each day is reduced where it was decoded, its values as a copy would hold them (-0
    // included). An extreme is too under a conversion that increases, converted once at the end (`Extreme`).
    const { scale, offset } = conversion;
    const unconverted = scale === 1 && offset === 0;
    const asStored = unconverted || (reduction instanceof Extreme && scale > 0);
    for await (const slab of this.slabs(cube, from, to, region, signal))
      for (let t = 0; t < slab.count; t++) {
        const day = dayOfPosition[slab.first + t]! - shift;
        for (; untallied < day; untallied++) tally.day(untallied, lacking, 0);
        const period = periods.ofDay[day]!;
        // A day of no period is neither reduced nor counted missing (MissingTally).
        let gapped = false;
        if (period >= 0 && asStored)
          gapped = reduction.day(slab.values, slab.length, slab.skip + t, pre, post, period, gaps);
        else if (period >= 0) {
          gapped = copyDay(slab, t, pre, post, conversion, row, gaps, 0);
          reduction.day(row, 1, 0, 1, cells, period, gaps);
        }
        tally.day(day, gapped ? gaps : undefined, 0);
        untallied = day + 1;
        if (gapped) gaps.fill(0);
      }
    for (; untallied < calendar.days; untallied++) tally.day(untallied, lacking, 0);
    const values = reduction.result();
    if (asStored && !unconverted) for (let i = 0; i < values.length; i++) values[i] = values[i]! * scale + offset;
    return maskFailed(values, tally.failed());
  }

  /**
   * The time chunks of `cube` over the cells of `region` and the positions `from` to `to`, in order, a few read
   * ahead (their decoding overlaps with what reads them).
   */
  private async *slabs(
    cube: DataCube,
    from: number,
    to: number,
    region: { start: number[]; shape: number[] },
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Slab> {
    const { axis } = this.plan;
    const { chunkShape } = cube.metadata;
    const step = chunkShape[axis]!;
    const firstChunk = Math.floor(from / step);
    const slabStart = (k: number) => Math.max(from, (firstChunk + k) * step);
    const slabEnd = (k: number) => Math.min(to, (firstChunk + k + 1) * step);
    const slab = async (k: number): Promise<Slab> => {
      const start = region.start.map((s, i) => (i === axis ? slabStart(k) : s));
      const shape = region.shape.map((s, i) => (i === axis ? slabEnd(k) - slabStart(k) : s));
      const chunk = start.map((s, i) => Math.floor(s / chunkShape[i]!));
      const stored = chunkRegion(cube.shape, chunkShape, chunk);
      const [first, count] = [slabStart(k), slabEnd(k) - slabStart(k)];
      // A block usually spans whole stored chunks in the other dimensions: their values are read as decoded.
      if (stored.start.every((s, i) => i === axis || (s === start[i] && stored.shape[i] === shape[i]))) {
        signal?.throwIfAborted();
        const values = await cube.source.readChunk(chunk, signal);
        return { values, length: stored.shape[axis]!, skip: start[axis]! - stored.start[axis]!, first, count };
      }
      return { values: await readRegion(cube, start, shape, signal), length: shape[axis]!, skip: 0, first, count };
    };
    for await (const read of readAhead(Math.floor((to - 1) / step) - firstChunk + 1, slab, SLABS_AHEAD)) {
      yield read;
      // The chunk is this reader's (`CubeSource.readChunk`): its memory goes back now rather than at a collection,
      // which the decoded chunks' memory would otherwise bring on every few chunks.
      if (spansItsBuffer(read.values)) (read.values.buffer as ArrayBuffer).transfer(0);
    }
  }

  /** Which (period, cell) fail the missing-day rule; for GSL, on each cell's hemisphere's year. */
  private failed(
    { calendar, periods }: Stretch,
    missing: Uint8Array,
    missingDays: Uint8Array,
    cells: number,
    south: Uint8Array | undefined,
  ): Uint8Array {
    const { frequency } = this.plan;
    const annual = frequency === 'year';
    if (!south) return failedPeriods(calendar, { missing, missingDays }, cells, periods.ofDay, periods.count, annual);
    const firstYear = Number(periods.labels[0]);
    const [north, southern] = [false, true].map((s) =>
      failedPeriods(
        calendar,
        { missing, missingDays },
        cells,
        seasonYears(calendar, firstYear, periods.count, s),
        periods.count,
        true,
      ),
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

/**
 * Copies day `t` of `slab` over its cells, in the working unit, onto `values` from `at` on, marking its NaNs with 1s
 * in `missing` (from `at` too); whether it had any.
 */
function copyDay(
  { values: stored, length, skip }: Slab,
  t: number,
  pre: number,
  post: number,
  { scale, offset }: Conversion,
  values: Float64Array,
  missing: Uint8Array,
  at: number,
): boolean {
  // Without a conversion the values stay as stored, -0 included (-0 * 1 + 0 would be 0).
  const same = scale === 1 && offset === 0;
  let gaps = false;
  for (let p = 0; p < pre; p++) {
    const from = (p * length + skip + t) * post;
    const to = at + p * post;
    for (let q = 0; q < post; q++) {
      const v = same ? stored[from + q]! : stored[from + q]! * scale + offset;
      values[to + q] = v;
      if (v !== v) {
        missing[to + q] = 1;
        gaps = true;
      }
    }
  }
  return gaps;
}
