/**
 * The ETCCDI indices against Debian's CDO on generated daily data with the edge cases: a cell always dry, one
 * always wet, runs of missing days, leap years, spells across a year's end, and short first and last years (the
 * series starts on 3 January and ends on 29 December). Counts must be equal, amounts within 1e-6 relative. Where
 * CDO's definition is not ETCCDI's, the test says so and checks ETCCDI's with a hand-computed expectation.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataCube } from '../../core/processing/cube/cube.ts';
import { memoryCube } from '../../core/processing/cube/memory.ts';
import { cdo, cdoFile, writeNetcdf, type DailyGrid } from '../support/cdo.ts';
import { run, spatial, temporal, valuesOf } from '../support/cubes.ts';
import { python } from '../support/python.ts';

const DAY = 86_400_000;
const LAT = [10];
const LON = [0, 1, 2, 3, 4];
const CELLS = LON.length;
/** Enough histogram bins for CDO to keep every value of the base period's windows, so its percentiles are exact. */
const PERCENTILE_BINS = { CDO_PCTL_NBINS: '1000' };

/** A deterministic uniform generator (mulberry32). */
function uniform(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values in quarters, which single precision holds exactly: CDO keeps percentile thresholds in floats. */
const quarter = (v: number) => Math.round(v * 4) / 4;

/**
 * Daily series from `first` to `last` (ISO dates) in five cells: 0 always dry and cold, 1 always wet and hot,
 * 2 random, 3 random with runs of 3 missing days in four months of each year (few enough for the missing-day rule
 * to keep them), 4 random with a dry spell from 20 December 2020 to 15 January 2021 and a warm spell over the end
 * of 2021 (where the series has those days).
 */
function generate(first: string, last: string, adjust?: (values: Record<'tmin' | 'tmax', Float64Array>) => void) {
  const start = Date.parse(first);
  const days = (Date.parse(last) - start) / DAY + 1;
  const dayOf = (iso: string) => (Date.parse(iso) - start) / DAY;
  const random = uniform(41);
  const [tmin, tmax, pr] = [0, 1, 2].map(() => new Float64Array(days * CELLS)) as [
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  for (let d = 0; d < days; d++) {
    const season = Math.sin((2 * Math.PI * ((((start + d * DAY) / DAY) % 365.25) - 110)) / 365.25);
    for (let c = 0; c < CELLS; c++) {
      const mean = c === 0 ? 3 + 14 * season : c === 1 ? 25 + 2 * season : 9 + 11 * season;
      const noise = 4 * (random() - 0.5);
      const range = 6 + 6 * random();
      const i = d * CELLS + c;
      tmin[i] = quarter(mean + noise - range / 2);
      tmax[i] = quarter(mean + noise + range / 2);
      pr[i] = c === 0 ? 0 : c === 1 ? 5 : random() < 0.4 ? quarter(-12 * Math.log(1 - random())) : 0;
    }
  }
  const set = (values: Float64Array, from: string, to: string, cell: number, value: number) => {
    for (let d = Math.max(0, dayOf(from)); d <= Math.min(days - 1, dayOf(to)); d++) values[d * CELLS + cell] = value;
  };
  for (let year = Number(first.slice(0, 4)); year <= Number(last.slice(0, 4)); year++)
    for (const [from, to] of [
      ['02-26', '02-28'],
      ['05-10', '05-12'],
      ['08-01', '08-03'],
      ['11-20', '11-22'],
    ])
      for (const v of [tmin, tmax, pr]) set(v, `${year}-${from}`, `${year}-${to}`, 3, NaN);
  set(pr, '2020-12-20', '2021-01-15', 4, 0);
  set(pr, '2020-12-19', '2020-12-19', 4, 12);
  set(pr, '2021-01-16', '2021-01-16', 4, 12);
  set(tmax, '2021-12-27', '2022-01-05', 4, 35);
  adjust?.({ tmin, tmax });
  const dimensions = [
    temporal(Array.from({ length: days }, (_, d) => new Date(start + d * DAY).toISOString().slice(0, 10))),
    spatial('y', LAT, 'EPSG:4326'),
    spatial('x', LON, 'EPSG:4326'),
  ];
  // One band each, with the CF units the processes read.
  const cube = (data: Float64Array, band: string, units: string) =>
    memoryCube({
      dimensions: [...dimensions, { name: 'bands', type: 'bands', labels: [band] }],
      data,
      chunkShape: [400, 1, 2, 1],
      units: { [band]: units },
    });
  return {
    first,
    days,
    values: { tmin, tmax, precipitation: pr },
    cubes: {
      tmin: cube(tmin, 'tasmin', 'degC'),
      tmax: cube(tmax, 'tasmax', 'degC'),
      precipitation: cube(pr, 'pr', 'mm day-1'),
    },
    files: { tn: '', tx: '', pr: '', tnK: '', txK: '', tgK: '' },
  };
}
type Dataset = ReturnType<typeof generate>;

/** Leap years 2020 and 2024, and short first and last years (3 January to 29 December). */
const MAIN = generate('2019-01-03', '2024-12-29');
const YEARS = [2019, 2020, 2021, 2022, 2023, 2024];
/**
 * Three years without a leap day, the first two the base period: CDO's calendar-day thresholds are by day of the
 * year (in a leap year every day from 1 March on takes the next day's), ETCCDI's by day of the month. The series
 * starts two days before the base period because the windows of its first days reach them (climdex), where CDO
 * has no windows centred on the first and last two days of what it is given.
 */
const NO_LEAP = generate('2020-12-30', '2023-12-31');
/**
 * Where CDO's bootstrapping operators (`etccdi_tn10p,5,<first>,<last>`) and ETCCDI's agree: CDO keys thresholds by
 * day of the year, takes a day at its threshold as beyond it (<= and >=, where ETCCDI's are strict) and wraps the
 * windows of the base period's first and last days round to its other end. So: base years without a leap day,
 * values unquantized (all distinct, and a day's own year is not in its samples, so no day equals a threshold), and
 * 30 December to 2 January missing in every year, so that no window crosses a year's end.
 */
function bootstrapSet(first: number, last: number) {
  const random = uniform(43);
  const start = Date.UTC(first, 0, 1);
  /** Per base year and cell, the days with data. */
  const withData = Array.from({ length: last - first + 1 }, () => new Array<number>(CELLS).fill(0));
  const set = generate(`${first}-01-01`, `${last}-12-31`, ({ tmin, tmax }) => {
    for (let i = 0; i < tmin.length; i++) {
      const date = new Date(start + Math.floor(i / CELLS) * DAY).toISOString();
      const yearEnd = ['12-30', '12-31', '01-01', '01-02'].includes(date.slice(5, 10));
      for (const values of [tmin, tmax]) values[i] = yearEnd ? NaN : values[i]! + random() / 8;
      if (!Number.isNaN(tmin[i]!)) withData[Number(date.slice(0, 4)) - first]![i % CELLS]!++;
    }
  });
  return { ...set, withData };
}
const BOOTSTRAP_YEARS = [2021, 2023] as const;
const BOOTSTRAP = bootstrapSet(...BOOTSTRAP_YEARS);

/** The base period and the two days on each side its windows reach, as CDO is given it. */
const BASE_WINDOWS = '-seldate,2020-12-30,2023-01-02';
const BASE = [2021, 2022];
const cubes = MAIN.cubes;

async function writeFiles(set: Dataset, dir: string) {
  const grid = (values: Float64Array): DailyGrid => ({ start: set.first, days: set.days, lat: LAT, lon: LON, values });
  const kelvin = (values: Float64Array) => values.map((v) => v + 273.15);
  const { tmin, tmax, precipitation } = set.values;
  const mean = tmin.map((v, i) => (v + tmax[i]!) / 2);
  const at = await mkdtemp(join(dir, 'set-'));
  set.files.tn = await writeNetcdf(at, 'tn', 'degC', grid(tmin));
  set.files.tx = await writeNetcdf(at, 'tx', 'degC', grid(tmax));
  set.files.pr = await writeNetcdf(at, 'pr', 'mm', grid(precipitation));
  set.files.tnK = await writeNetcdf(at, 'tnK', 'K', grid(kelvin(tmin)));
  set.files.txK = await writeNetcdf(at, 'txK', 'K', grid(kelvin(tmax)));
  set.files.tgK = await writeNetcdf(at, 'tgK', 'K', grid(kelvin(mean)));
}

async function stratus(process: string, args: Record<string, unknown>): Promise<number[]> {
  return valuesOf((await run(process, args)) as DataCube);
}

/**
 * Values per period of Stratus against CDO's time steps, cell by cell; `ours` gives, by position (period *
 * CELLS + cell), the hand-computed ETCCDI value where CDO's definition differs.
 */
function expectSame(
  actual: number[],
  reference: number[][],
  exact: boolean,
  label: string,
  ours: ReadonlyMap<number, number> = new Map(),
) {
  const expected = reference.flat();
  expect(actual.length, `${label}: values`).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = ours.get(i) ?? expected[i]!;
    const where = `${label} period ${Math.floor(i / CELLS)} cell ${i % CELLS}`;
    if (Number.isNaN(e) || Number.isNaN(a)) expect(a, where).toBeNaN();
    else if (exact) expect(a + 0, where).toBe(e + 0);
    else expect(Math.abs(a - e), `${where}: ${a} vs ${e}`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(e)));
  });
}

/** The positions of `cell` in every period with the values given. */
const inCell = (cell: number, values: number[]) => new Map(values.map((v, period) => [period * CELLS + cell, v]));

let dir: string;
const files = MAIN.files;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratus-etccdi-'));
  await Promise.all([writeFiles(MAIN, dir), writeFiles(NO_LEAP, dir), writeFiles(BOOTSTRAP, dir)]);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ETCCDI indices against CDO', () => {
  it.each([
    ['etccdi_fd', 'etccdi_fd', 'tnK'],
    ['etccdi_su', 'etccdi_su', 'txK'],
    ['etccdi_id', 'etccdi_id', 'txK'],
    ['etccdi_tr', 'etccdi_tr', 'tnK'],
    ['etccdi_r10mm', 'etccdi_r10mm,freq=year', 'pr'],
    ['etccdi_r20mm', 'etccdi_r20mm,freq=year', 'pr'],
    ['etccdi_cdd', 'etccdi_cdd,1,5,freq=year', 'pr'],
    ['etccdi_cwd', 'etccdi_cwd,1,5,freq=year', 'pr'],
  ] as const)('%s counts the days CDO counts with %s', async (process, operator, file) => {
    const variable = file.startsWith('tn') ? 'tmin' : file.startsWith('tx') ? 'tmax' : 'precipitation';
    expectSame(
      await stratus(process, { data: cubes[variable] }),
      await cdo(dir, [operator, files[file]]),
      true,
      process,
    );
  });

  it.each([
    ['etccdi_txx', 'tmax', 'max'],
    ['etccdi_tnx', 'tmin', 'max'],
    ['etccdi_txn', 'tmax', 'min'],
    ['etccdi_tnn', 'tmin', 'min'],
    ['etccdi_rx1day', 'precipitation', 'max'],
  ] as const)('%s per month and per year equals the extreme CDO takes', async (process, variable, statistic) => {
    const file = variable === 'tmin' ? files.tn : variable === 'tmax' ? files.tx : files.pr;
    for (const frequency of ['month', 'year'] as const) {
      const operator = `${frequency === 'month' ? 'mon' : 'year'}${statistic}`;
      const actual = await stratus(process, { data: cubes[variable], frequency });
      expectSame(actual, await cdo(dir, [operator, file]), true, `${process} ${frequency}`);
    }
  });

  it('etccdi_dtr per month and per year equals the mean of TX - TN in CDO', async () => {
    for (const frequency of ['month', 'year'] as const) {
      const actual = await stratus('etccdi_dtr', { tmin: cubes.tmin, tmax: cubes.tmax, frequency });
      const operator = frequency === 'month' ? 'monmean' : 'yearmean';
      expectSame(actual, await cdo(dir, [operator, '-sub', files.tx, files.tn]), false, `etccdi_dtr ${frequency}`);
    }
  });

  it('etccdi_rx5day per month and per year equals CDO over 5-day sums dated by their last day', async () => {
    for (const frequency of ['month', 'year'] as const) {
      const actual = await stratus('etccdi_rx5day', { data: cubes.precipitation, frequency });
      const reference = await cdo(dir, [`etccdi_rx5day,50,freq=${frequency}`, '-runsum,5', files.pr], {
        CDO_TIMESTAT_DATE: 'last',
      });
      expectSame(actual, reference, false, `etccdi_rx5day ${frequency}`);
    }
  });

  it('etccdi_sdii and etccdi_rnnmm equal eca_sdii and eca_pd year by year', async () => {
    const perYear = async (operator: string) =>
      (await Promise.all(YEARS.map((y) => cdo(dir, [operator, `-selyear,${y}`, files.pr])))).flat();
    // A year without a wet day (cell 0): CDO gives no value, ETCCDI's reference software (climdex) 0.
    const dry = inCell(
      0,
      YEARS.map(() => 0),
    );
    expectSame(
      await stratus('etccdi_sdii', { data: cubes.precipitation }),
      await perYear('eca_sdii'),
      false,
      'sdii',
      dry,
    );
    expectSame(
      await stratus('etccdi_rnnmm', { data: cubes.precipitation, threshold: 25 }),
      await perYear('eca_pd,25'),
      true,
      'rnnmm',
    );
  });

  it('etccdi_prcptot equals the yearly sum of wet days in CDO', async () => {
    const actual = await stratus('etccdi_prcptot', { data: cubes.precipitation });
    expectSame(actual, await cdo(dir, ['yearsum', '-mul', files.pr, '-gec,1', files.pr]), false, 'prcptot');
  });

  it('etccdi_gsl equals eca_gsl north of the equator', async () => {
    const mask = await writeNetcdf(dir, 'land', '1', {
      start: MAIN.first,
      days: 1,
      lat: LAT,
      lon: LON,
      values: new Float64Array(CELLS).fill(1),
    });
    const actual = await stratus('etccdi_gsl', { tmin: cubes.tmin, tmax: cubes.tmax });
    // A year warm from its first day (cell 1): CDO starts the season on the 7th day, ETCCDI on the first; the
    // series starts on 3 January 2019 and the year 2024 runs to 31 December (its last two days missing).
    const warm = inCell(1, [363, 366, 365, 365, 365, 366]);
    expectSame(actual, await cdo(dir, ['eca_gsl', files.tgK, `-seltimestep,1`, mask]), true, 'gsl', warm);
  });

  it.each([
    ['etccdi_r95ptot', 95],
    ['etccdi_r99ptot', 99],
  ] as const)(
    '%s equals the wet-day total above the type 8 percentile of the base period in CDO',
    async (process, p) => {
      // CDO 2.1.1's etccdi_r95p and etccdi_r99p refuse the arguments they document, and its timpctl estimates
      // percentiles from a histogram (45.75 where R's type 8 gives 45.53); numpy's type 8 gives the thresholds.
      const { files: f, cubes: c } = NO_LEAP;
      const thresholds = await python<(number | null)[]>(WET_DAY_PERCENTILE, [
        f.pr,
        String(p / 100),
        ...BASE.map(String),
      ]);
      const grid = {
        start: '2021-01-01',
        days: 1,
        lat: LAT,
        lon: LON,
        values: Float64Array.from(thresholds, (t) => t ?? NaN),
      };
      const threshold = await writeNetcdf(await mkdtemp(join(dir, 'p-')), 'threshold', 'mm', grid);
      const reference = (await cdo(dir, ['yearsum', '-mul', f.pr, '-gt', f.pr, threshold])).slice(-3);
      const actual = (await stratus(process, { data: c.precipitation, base_period: BASE })).slice(CELLS);
      expectSame(actual, reference, false, process);
    },
  );

  it.each([
    ['etccdi_tn10p', 'tmin', 'eca_tn10p', 10],
    ['etccdi_tx10p', 'tmax', 'eca_tx10p', 10],
    ['etccdi_tn90p', 'tmin', 'eca_tn90p', 90],
    ['etccdi_tx90p', 'tmax', 'eca_tx90p', 90],
  ] as const)(
    '%s of %s per month and per year outside the base period equals %s',
    async (process, variable, operator, p) => {
      const { files: f, cubes: c } = NO_LEAP;
      const file = variable === 'tmin' ? f.tn : f.tx;
      const thresholds = await percentileFile(file, p);
      const year = BASE[1]! + 1;
      // The months at the ends of the year (whose windows reach into the next and the last) and two with missing days.
      const months = [1, 2, 11, 12];
      const perMonth = await Promise.all(
        months.map((m) => cdo(dir, [operator, `-selmon,${m}`, `-selyear,${year}`, file, thresholds])),
      );
      const monthly = (await stratus(process, { data: c[variable], frequency: 'month', base_period: BASE })).slice(
        -12 * CELLS,
      );
      const chosen = months.flatMap((m) => monthly.slice((m - 1) * CELLS, m * CELLS));
      expectSame(chosen, perMonth.flat(), false, `${process} month`);
      const annual = await stratus(process, { data: c[variable], frequency: 'year', base_period: BASE });
      const reference = await cdo(dir, [operator, `-selyear,${year}`, file, thresholds]);
      expectSame(annual.slice(-CELLS), reference, false, `${process} year`);
    },
  );

  it.each([
    ['etccdi_tn10p', 'tmin'],
    ['etccdi_tx10p', 'tmax'],
    ['etccdi_tn90p', 'tmin'],
    ['etccdi_tx90p', 'tmax'],
  ] as const)('%s inside the base period equals the bootstrap of CDO (same operator)', async (process, variable) => {
    const { cubes: c, files: f, withData } = BOOTSTRAP;
    const file = variable === 'tmin' ? f.tn : f.tx;
    const [min, max] = await Promise.all(['-ydrunmin,5', '-ydrunmax,5'].map((o) => cdoFile(dir, [o, file])));
    const [first, last] = BOOTSTRAP_YEARS;
    // With at least window x years x 2 + 2 histogram bins CDO keeps every value: exact type 8 percentiles.
    const reference = await cdo(dir, [`${process},5,${first},${last}`, file, min!, max!], {
      CDO_PCTL_NBINS: String(5 * (last - first + 1) * 2 + 2),
    });
    // CDO's share is of every day of the year, ETCCDI's of the days with data.
    const ofDaysWithData = reference.map((year, y) => year.map((v, cell) => (v * 365) / withData[y]![cell]!));
    const actual = await stratus(process, { data: c[variable], frequency: 'year', base_period: BOOTSTRAP_YEARS });
    expectSame(actual, ofDaysWithData, false, process);
  });

  it.each([
    ['etccdi_wsdi', 'tmax', 90],
    ['etccdi_csdi', 'tmin', 10],
  ] as const)('%s equals CDO over thresholds of the base period', async (process, variable, percentile) => {
    const file = variable === 'tmin' ? NO_LEAP.files.tn : NO_LEAP.files.tx;
    const thresholds = await percentileFile(file, percentile);
    // The first year of the series, 2020, has two days: no value under the missing-day rule.
    const reference = (await cdo(dir, [`${process},6,freq=year`, file, thresholds])).slice(-3);
    const actual = await stratus(process, { data: NO_LEAP.cubes[variable], base_period: BASE });
    expectSame(actual.slice(CELLS), reference, true, process);
  });
});

/** Per cell, numpy's type 8 percentile (`median_unbiased`) of the wet days of the base years; NaN as null. */
const WET_DAY_PERCENTILE = `
import json, sys
import netCDF4, numpy as np
path, p, first, last = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ds = netCDF4.Dataset(path)
pr = ds['pr'][:].filled(np.nan)
years = np.array([d.year for d in netCDF4.num2date(ds['time'][:], ds['time'].units)])
base = pr[(years >= first) & (years <= last)].reshape(-1, pr.shape[1] * pr.shape[2])
out = []
for cell in base.T:
    wet = cell[cell >= 1]
    out.append(float(np.quantile(wet, p, method='median_unbiased')) if wet.size else None)
print(json.dumps(out))
`;

/** CDO's calendar-day `p` percentiles (R's type 8) of `file` over the base years, in a 5-day window. */
async function percentileFile(file: string, p: number): Promise<string> {
  const base = [BASE_WINDOWS, file];
  const [min, max] = await Promise.all(['-ydrunmin,5', '-ydrunmax,5'].map((o) => cdoFile(dir, [o, ...base])));
  return cdoFile(dir, [`ydrunpctl,${p},5,pm=r8`, ...base, min!, max!], PERCENTILE_BINS);
}
