/**
 * The 27 ETCCDI core indices (https://etccdi.pacificclimate.org/list_27_indices.shtml): what each reads, the
 * frequencies ETCCDI defines it for, its unit, and how it is computed from a daily block. Temperatures are degC and
 * precipitation mm/day; a wet day has at least 1 mm.
 */
import type { Calendar, Frequency, Periods } from './calendar.ts';
import { growingSeasonLength } from './gsl.ts';
import { exceedances, wetDayPercentile, type BaseYears, type Side } from './percentiles.ts';
import { countDays, extreme, largestRunningSum, meanOf, sumWhere } from './reductions.ts';
import { daysInSpells, longestSpell, type SeriesSpan } from './spells.ts';

export type Variable = 'tmin' | 'tmax' | 'precipitation';

export const WET_DAY_MM = 1;
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
}

export interface EtccdiIndex {
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
  /** The values per period and cell, before the missing-day rule. */
  compute(input: IndexInput): Float64Array;
}

const ANNUAL: readonly Frequency[] = ['year'];
const MONTHLY: readonly Frequency[] = ['month', 'year'];

const series = (input: IndexInput, variable: Variable) => input.series[variable]!;

function count(id: string, name: string, variable: Variable, test: (v: number) => boolean): EtccdiIndex {
  return {
    id,
    name,
    inputs: { data: variable },
    frequencies: ANNUAL,
    unit: 'days',
    compute: (input) => countDays(series(input, variable), input.cells, input.periods, test),
  };
}

function extremeOf(id: string, name: string, variable: Variable, max: boolean): EtccdiIndex {
  return {
    id,
    name,
    inputs: { data: variable },
    frequencies: MONTHLY,
    unit: 'degC',
    compute: (input) => extreme(series(input, variable), input.cells, input.periods, max),
  };
}

/** Share of days (%) beyond the calendar day's percentile `p` of the base period, bootstrapped in it. */
function percentOfDays(id: string, name: string, variable: Variable, p: number, side: Side): EtccdiIndex {
  return {
    id,
    name,
    inputs: { data: variable },
    frequencies: MONTHLY,
    unit: '%',
    percentile: true,
    compute: (input) => {
      const shares = exceedances(series(input, variable), input.cells, input.calendar, input.base!, p, side, true);
      const { sum, count } = sumWhere(shares, input.cells, input.periods, () => true);
      for (let i = 0; i < sum.length; i++) sum[i] = count[i]! > 0 ? (100 * sum[i]!) / count[i]! : NaN;
      return sum;
    },
  };
}

/** Days in spells of at least six days beyond the calendar day's percentile of the base period (no bootstrap). */
function spellDays(id: string, name: string, variable: Variable, p: number, side: Side): EtccdiIndex {
  return {
    id,
    name,
    inputs: { data: variable },
    frequencies: ANNUAL,
    unit: 'days',
    percentile: true,
    compute: ({ series: s, cells, calendar, base, periods }) => {
      const beyond = exceedances(s[variable]!, cells, calendar, base!, p, side, false);
      const meets = (d: number, c: number) => beyond[d * cells + c]!;
      return daysInSpells(calendar.days, cells, periods.ofDay, periods.count, meets, SPELL_MIN_DAYS);
    },
  };
}

function longest(id: string, name: string, wet: boolean): EtccdiIndex {
  return {
    id,
    name,
    inputs: { data: 'precipitation' },
    frequencies: ANNUAL,
    unit: 'days',
    compute: ({ series: s, cells, span, periods }) => {
      const pr = s.precipitation!;
      const meets = (d: number, c: number) => {
        const v = pr[d * cells + c]!;
        return Number.isNaN(v) ? NaN : v >= WET_DAY_MM === wet ? 1 : 0;
      };
      return longestSpell(span, cells, periods.ofDay, periods.count, meets);
    },
  };
}

/** Total precipitation (mm) of wet days above the base period's percentile `p` of wet days. */
function totalAbove(id: string, name: string, p: number): EtccdiIndex {
  return {
    id,
    name,
    inputs: { data: 'precipitation' },
    frequencies: ANNUAL,
    unit: 'mm',
    percentile: true,
    compute: ({ series: s, cells, calendar, base, periods }) => {
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
    },
  };
}

export const ETCCDI_INDICES: readonly EtccdiIndex[] = [
  count('etccdi_fd', 'FD', 'tmin', (v) => v < 0),
  count('etccdi_su', 'SU', 'tmax', (v) => v > 25),
  count('etccdi_id', 'ID', 'tmax', (v) => v < 0),
  count('etccdi_tr', 'TR', 'tmin', (v) => v > 20),
  {
    id: 'etccdi_gsl',
    name: 'GSL',
    inputs: { tmin: 'tmin', tmax: 'tmax' },
    frequencies: ANNUAL,
    unit: 'days',
    compute: ({ series: s, cells, calendar, periods, south }) => {
      const mean = new Float64Array(calendar.days * cells);
      for (let i = 0; i < mean.length; i++) mean[i] = (s.tmin![i]! + s.tmax![i]!) / 2;
      const firstYear = Number(periods.labels[0]);
      return growingSeasonLength(calendar, mean, cells, firstYear, periods.count, south!);
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
    compute: ({ series: s, cells, periods }) => {
      const range = new Float64Array(s.tmax!.length);
      for (let i = 0; i < range.length; i++) range[i] = s.tmax![i]! - s.tmin![i]!;
      return meanOf(range, cells, periods);
    },
  },
  {
    id: 'etccdi_rx1day',
    name: 'Rx1day',
    inputs: { data: 'precipitation' },
    frequencies: MONTHLY,
    unit: 'mm',
    compute: (input) => extreme(series(input, 'precipitation'), input.cells, input.periods, true),
  },
  {
    id: 'etccdi_rx5day',
    name: 'Rx5day',
    inputs: { data: 'precipitation' },
    frequencies: MONTHLY,
    unit: 'mm',
    compute: (input) => largestRunningSum(series(input, 'precipitation'), input.cells, input.periods, 5),
  },
  {
    id: 'etccdi_sdii',
    name: 'SDII',
    inputs: { data: 'precipitation' },
    frequencies: ANNUAL,
    unit: 'mm/day',
    compute: (input) => {
      const { sum, count } = sumWhere(series(input, 'precipitation'), input.cells, input.periods, wet);
      for (let i = 0; i < sum.length; i++) sum[i] = count[i]! > 0 ? sum[i]! / count[i]! : 0;
      return sum;
    },
  },
  count('etccdi_r10mm', 'R10mm', 'precipitation', (v) => v >= 10),
  count('etccdi_r20mm', 'R20mm', 'precipitation', (v) => v >= 20),
  {
    ...count('etccdi_rnnmm', 'Rnnmm', 'precipitation', () => false),
    threshold: true,
    compute: (input) =>
      countDays(series(input, 'precipitation'), input.cells, input.periods, (v) => v >= input.threshold!),
  },
  longest('etccdi_cdd', 'CDD', false),
  longest('etccdi_cwd', 'CWD', true),
  totalAbove('etccdi_r95ptot', 'R95pTOT', 0.95),
  totalAbove('etccdi_r99ptot', 'R99pTOT', 0.99),
  {
    id: 'etccdi_prcptot',
    name: 'PRCPTOT',
    inputs: { data: 'precipitation' },
    frequencies: ANNUAL,
    unit: 'mm',
    compute: (input) => sumWhere(series(input, 'precipitation'), input.cells, input.periods, wet).sum,
  },
];

function wet(v: number): boolean {
  return v >= WET_DAY_MM;
}
