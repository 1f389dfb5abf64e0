/**
 * The 27 ETCCDI core indices (https://etccdi.pacificclimate.org/list_27_indices.shtml): what each reads, the
 * frequencies ETCCDI defines it for, its CF unit, and how it is computed from a daily block. Blocks hold
 * temperatures in degC and precipitation in mm day-1 (the processes convert the inputs' units); a wet day has at
 * least 1 mm.
 */
import type { Calendar, Frequency, Periods } from './calendar.ts';
import { growingSeasonLength, SOUTHERN_SECOND_HALF_DAYS } from './gsl.ts';
import { exceedances, wetDayPercentile, type BaseYears, type Side } from './percentiles.ts';
import {
  DayCount,
  Extreme,
  largestRunningSum,
  meanDifference,
  reduceBlock,
  SumWhere,
  type DayCondition,
  type PeriodReduction,
} from './reductions.ts';
import { daysInSpells, longestSpell, type SeriesSpan } from './spells.ts';

export type Variable = 'tmin' | 'tmax' | 'precipitation';

export const WET_DAY_MM = 1;
/** Days Rx5day sums. */
const RX5DAY_DAYS = 5;
/** Days a warm or cold spell lasts at least (WSDI, CSDI). */
export const SPELL_MIN_DAYS = 6;

export interface IndexInput {
  readonly calendar: Calendar;
  readonly periods: Periods;
  readonly span: SeriesSpan;
  readonly cells: number;
  /** The daily block of each variable the index reads. */
  readonly series: Readonly<Partial<Record<Variable, Float64Array>>>;
  /** Rnnmm's threshold (mm). */
  readonly threshold?: number;
  readonly base?: BaseYears;
  /** Per cell, 1 south of the equator (GSL). */
  readonly south?: Uint8Array;
  /**
   * What the index left for the same cells at the end of the run of years before (`EtccdiIndex.runs`), and leaves
   * here for the next: empty in the first run, and after years the series lacks entirely.
   */
  readonly carried: Carried;
}

/** State an index hands from one run of years to the next, by name. */
export type Carried = Record<string, Float64Array | Int32Array>;

/**
 * How an index's series may be computed a few whole years at a time rather than whole: `ahead`, the days after a
 * run's last that the index reads (the day that ends a spell, the second half of a southern growing season); a
 * run's calendar then holds the next year too, its periods ending with the run's own last year. What a period
 * needs from the years before comes through `IndexInput.carried`.
 */
export interface RunsOfYears {
  readonly ahead: number;
}

/** Runs of years that read no day after their own. */
const NO_DAYS_AHEAD: RunsOfYears = { ahead: 0 };

/** What an index reduced day by day (`EtccdiIndex.byDay`) is computed over. */
export interface DayByDayInput {
  readonly periods: Periods;
  readonly cells: number;
  /** Rnnmm's threshold (mm). */
  readonly threshold?: number;
}

interface IndexDescription {
  /** The process id. */
  readonly id: string;
  /** ETCCDI's name. */
  readonly name: string;
  /** The process parameters that take a cube, and the variable each is. */
  readonly inputs: Readonly<Record<string, Variable>>;
  readonly frequencies: readonly Frequency[];
  readonly unit: string;
  /** Needs a base period (percentile indices). */
  readonly percentile?: boolean;
  /** Takes a threshold (Rnnmm). */
  readonly threshold?: boolean;
  /** Absent: the index needs the whole series at once (the percentile indices). */
  readonly runs?: RunsOfYears;
}

/** An index computed from the daily block of each variable it reads. */
interface BlockIndex extends IndexDescription {
  /** The values per period and cell, before the missing-day rule. */
  compute(input: IndexInput): Float64Array;
  readonly byDay?: undefined;
}

/**
 * An index of one variable reduced one day at a time as its input is read, without a block: its reduction gives
 * the values per period and cell, before the missing-day rule.
 */
interface DayByDayIndex extends IndexDescription {
  byDay(input: DayByDayInput): PeriodReduction;
}

export type EtccdiIndex = BlockIndex | DayByDayIndex;

const ANNUAL: readonly Frequency[] = ['year'];
const MONTHLY: readonly Frequency[] = ['month', 'year'];

const series = (input: IndexInput, variable: Variable) => input.series[variable]!;

/** An index of one input cube, `data`. */
function ofData(
  id: string,
  name: string,
  variable: Variable,
  [frequencies, unit]: [readonly Frequency[], string],
  compute: (input: IndexInput) => Float64Array,
  options: { percentile?: boolean; threshold?: boolean; runs?: RunsOfYears } = {},
): EtccdiIndex {
  return { id, name, inputs: { data: variable }, frequencies, unit, ...options, compute };
}

/** An index of one input cube, `data`, reduced day by day in runs of years. */
function dayByDay(
  id: string,
  name: string,
  variable: Variable,
  [frequencies, unit]: [readonly Frequency[], string],
  byDay: (input: DayByDayInput) => PeriodReduction,
  options: { threshold?: boolean } = {},
): EtccdiIndex {
  return { id, name, inputs: { data: variable }, frequencies, unit, ...options, runs: NO_DAYS_AHEAD, byDay };
}

function count(id: string, name: string, variable: Variable, condition: DayCondition): EtccdiIndex {
  return dayByDay(
    id,
    name,
    variable,
    [ANNUAL, 'days'],
    ({ cells, periods }) => new DayCount(cells, periods, condition),
  );
}

function extremeOf(id: string, name: string, variable: Variable, max: boolean, unit = 'degC'): EtccdiIndex {
  return dayByDay(id, name, variable, [MONTHLY, unit], ({ cells, periods }) => new Extreme(cells, periods, max));
}

/** Share of days (%) beyond the calendar day's percentile `p` of the base period, bootstrapped in it. */
function percentOfDays(id: string, name: string, variable: Variable, p: number, side: Side): EtccdiIndex {
  const compute = (input: IndexInput) => {
    const shares = exceedances(series(input, variable), input.cells, input.calendar, input.base!, p, side, true);
    const { sum, count } = reduceBlock(
      new SumWhere(input.cells, input.periods, -Infinity),
      shares,
      input.cells,
      input.periods,
    );
    for (let i = 0; i < sum.length; i++) sum[i] = count[i]! > 0 ? (100 * sum[i]!) / count[i]! : NaN;
    return sum;
  };
  return ofData(id, name, variable, [MONTHLY, '%'], compute, { percentile: true });
}

/** Days in spells of at least six days beyond the calendar day's percentile of the base period (no bootstrap). */
function spellDays(id: string, name: string, variable: Variable, p: number, side: Side): EtccdiIndex {
  const compute = ({ series: s, cells, calendar, base, periods }: IndexInput) => {
    const beyond = exceedances(s[variable]!, cells, calendar, base!, p, side, false);
    const meets = (d: number, c: number) => beyond[d * cells + c]!;
    return daysInSpells(calendar.days, cells, periods.ofDay, periods.count, meets, SPELL_MIN_DAYS);
  };
  return ofData(id, name, variable, [ANNUAL, 'days'], compute, { percentile: true });
}

/** CDD and CWD: the spell going on at the end of a run of years carries into the next. */
function longest(id: string, name: string, wet: boolean): EtccdiIndex {
  const compute = ({ series: s, cells, span, periods, carried }: IndexInput) => {
    const run = (carried.run ??= new Int32Array(cells)) as Int32Array;
    return longestSpell(s.precipitation!, cells, span, periods, { atLeast: wet, limit: WET_DAY_MM }, run);
  };
  return ofData(id, name, 'precipitation', [ANNUAL, 'days'], compute, { runs: { ahead: 1 } });
}

/** Total precipitation (mm) of wet days above the base period's percentile `p` of wet days. */
function totalAbove(id: string, name: string, p: number): EtccdiIndex {
  const compute = ({ series: s, cells, calendar, base, periods }: IndexInput) => {
    const pr = s.precipitation!;
    const thresholds = wetDayPercentile(pr, cells, calendar, base!, p, WET_DAY_MM);
    const out = new Float64Array(periods.count * cells);
    for (let d = 0; d < calendar.days; d++) {
      const k = periods.ofDay[d]!;
      if (k < 0) continue;
      for (let c = 0; c < cells; c++) {
        const v = pr[d * cells + c]!;
        if (v >= WET_DAY_MM && v > thresholds[c]!) out[k * cells + c]! += v;
      }
    }
    return out;
  };
  return ofData(id, name, 'precipitation', [ANNUAL, 'mm'], compute, { percentile: true });
}

export const ETCCDI_INDICES: readonly EtccdiIndex[] = [
  count('etccdi_fd', 'FD', 'tmin', { test: '<', limit: 0 }),
  count('etccdi_su', 'SU', 'tmax', { test: '>', limit: 25 }),
  count('etccdi_id', 'ID', 'tmax', { test: '<', limit: 0 }),
  count('etccdi_tr', 'TR', 'tmin', { test: '>', limit: 20 }),
  {
    id: 'etccdi_gsl',
    name: 'GSL',
    inputs: { tmin: 'tmin', tmax: 'tmax' },
    frequencies: ANNUAL,
    unit: 'days',
    runs: { ahead: SOUTHERN_SECOND_HALF_DAYS },
    compute: ({ series: s, cells, calendar, periods, south }) => {
      const firstYear = Number(periods.labels[0]);
      return growingSeasonLength(calendar, [s.tmin!, s.tmax!], cells, firstYear, periods.count, south!);
    },
  },
  extremeOf('etccdi_txx', 'TXx', 'tmax', true),
  extremeOf('etccdi_tnx', 'TNx', 'tmin', true),
  extremeOf('etccdi_txn', 'TXn', 'tmax', false),
  extremeOf('etccdi_tnn', 'TNn', 'tmin', false),
  percentOfDays('etccdi_tn10p', 'TN10p', 'tmin', 0.1, 'below'),
  percentOfDays('etccdi_tx10p', 'TX10p', 'tmax', 0.1, 'below'),
  percentOfDays('etccdi_tn90p', 'TN90p', 'tmin', 0.9, 'above'),
  percentOfDays('etccdi_tx90p', 'TX90p', 'tmax', 0.9, 'above'),
  spellDays('etccdi_wsdi', 'WSDI', 'tmax', 0.9, 'above'),
  spellDays('etccdi_csdi', 'CSDI', 'tmin', 0.1, 'below'),
  {
    id: 'etccdi_dtr',
    name: 'DTR',
    inputs: { tmin: 'tmin', tmax: 'tmax' },
    frequencies: MONTHLY,
    unit: 'degC',
    runs: NO_DAYS_AHEAD,
    compute: ({ series: s, cells, periods }) => meanDifference(s.tmax!, s.tmin!, cells, periods),
  },
  extremeOf('etccdi_rx1day', 'Rx1day', 'precipitation', true, 'mm'),
  ofData(
    'etccdi_rx5day',
    'Rx5day',
    'precipitation',
    [MONTHLY, 'mm'],
    ({ series: s, cells, calendar, periods, carried }) => {
      const pr = s.precipitation!;
      const out = largestRunningSum(pr, cells, periods, RX5DAY_DAYS, carried.before as Float64Array | undefined);
      // The run's last days begin the windows of the next run's first.
      carried.before = pr.slice((calendar.days - RX5DAY_DAYS + 1) * cells, calendar.days * cells);
      return out;
    },
    { runs: NO_DAYS_AHEAD },
  ),
  dayByDay(
    'etccdi_sdii',
    'SDII',
    'precipitation',
    [ANNUAL, 'mm day-1'],
    ({ cells, periods }) =>
      new SumWhere(cells, periods, WET_DAY_MM, (sum, count) => {
        for (let i = 0; i < sum.length; i++) sum[i] = count[i]! > 0 ? sum[i]! / count[i]! : 0;
        return sum;
      }),
  ),
  count('etccdi_r10mm', 'R10mm', 'precipitation', { test: '>=', limit: 10 }),
  count('etccdi_r20mm', 'R20mm', 'precipitation', { test: '>=', limit: 20 }),
  dayByDay(
    'etccdi_rnnmm',
    'Rnnmm',
    'precipitation',
    [ANNUAL, 'days'],
    ({ cells, periods, threshold }) => new DayCount(cells, periods, { test: '>=', limit: threshold! }),
    { threshold: true },
  ),
  longest('etccdi_cdd', 'CDD', false),
  longest('etccdi_cwd', 'CWD', true),
  totalAbove('etccdi_r95ptot', 'R95pTOT', 0.95),
  totalAbove('etccdi_r99ptot', 'R99pTOT', 0.99),
  dayByDay(
    'etccdi_prcptot',
    'PRCPTOT',
    'precipitation',
    [ANNUAL, 'mm'],
    ({ cells, periods }) => new SumWhere(cells, periods, WET_DAY_MM),
  ),
];
