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
import { cdo, writeNetcdf, type DailyGrid } from '../support/cdo.ts';
import { run, spatial, temporal, valuesOf } from '../support/cubes.ts';

const DAY = 86_400_000;
const START = Date.UTC(2019, 0, 3);
const DAYS = (Date.UTC(2024, 11, 29) - START) / DAY + 1;
const LAT = [10];
const LON = [0, 1, 2, 3, 4];
const CELLS = LON.length;
const YEARS = [2019, 2020, 2021, 2022, 2023, 2024];
const BASE = [2019, 2021];

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

const tenth = (v: number) => Math.round(v * 10) / 10;
const dayOf = (iso: string) => (Date.parse(iso) - START) / DAY;

/** The series of each cell: 0 always dry and cold, 1 always wet and hot, 2 random, 3 random with missing runs, 4 spells over year ends. */
function generate() {
  const random = uniform(41);
  const [tmin, tmax, pr] = [0, 1, 2].map(() => new Float64Array(DAYS * CELLS));
  for (let d = 0; d < DAYS; d++) {
    const season = Math.sin((2 * Math.PI * (((START + d * DAY) / DAY) % 365.25 - 110)) / 365.25);
    for (let c = 0; c < CELLS; c++) {
      const mean = c === 0 ? 3 + 14 * season : c === 1 ? 25 + 2 * season : 9 + 11 * season;
      const noise = 4 * (random() - 0.5);
      const range = 6 + 6 * random();
      const i = d * CELLS + c;
      tmin[i] = tenth(mean + noise - range / 2);
      tmax[i] = tenth(mean + noise + range / 2);
      pr[i] = c === 0 ? 0 : c === 1 ? 5 : random() < 0.4 ? tenth(-12 * Math.log(1 - random())) : 0;
    }
  }
  // Cell 3: runs of up to 3 missing days in four months of each year (the missing-day rule keeps them).
  for (const year of YEARS)
    for (const [month, day] of [[2, 26], [5, 10], [8, 1], [11, 20]] as const) {
      const first = dayOf(`${year}-${String(month).padStart(2, '0')}-${day}`);
      for (let d = first; d < first + 3; d++) for (const v of [tmin, tmax, pr]) v[d * CELLS + 3] = NaN;
    }
  // Cell 4: a dry spell from 20 December 2020 to 15 January 2021 and a warm spell over the end of 2021.
  for (let d = dayOf('2020-12-20'); d <= dayOf('2021-01-15'); d++) pr[d * CELLS + 4] = 0;
  pr[dayOf('2020-12-19') * CELLS + 4] = 12;
  pr[dayOf('2021-01-16') * CELLS + 4] = 12;
  for (let d = dayOf('2021-12-27'); d <= dayOf('2022-01-05'); d++) tmax[d * CELLS + 4] = 35;
  return { tmin, tmax, pr };
}

const data = generate();
const dimensions = [
  temporal(Array.from({ length: DAYS }, (_, d) => new Date(START + d * DAY).toISOString().slice(0, 10))),
  spatial('y', LAT, 'EPSG:4326'),
  spatial('x', LON, 'EPSG:4326'),
];
const cubes = {
  tmin: memoryCube({ dimensions, data: data.tmin, chunkShape: [400, 1, 2] }),
  tmax: memoryCube({ dimensions, data: data.tmax, chunkShape: [400, 1, 2] }),
  precipitation: memoryCube({ dimensions, data: data.pr, chunkShape: [400, 1, 2] }),
};

async function stratus(process: string, args: Record<string, unknown>): Promise<number[]> {
  return valuesOf((await run(process, args)) as DataCube);
}

/** Values per period of Stratus against CDO's time steps, cell by cell. */
function expectSame(actual: number[], reference: number[][], exact: boolean, label: string) {
  const expected = reference.flat();
  expect(actual.length, `${label}: values`).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i]!;
    const where = `${label} period ${Math.floor(i / CELLS)} cell ${i % CELLS}`;
    if (Number.isNaN(e) || Number.isNaN(a)) expect(a, where).toBeNaN();
    else if (exact) expect(a + 0, where).toBe(e + 0);
    else expect(Math.abs(a - e), `${where}: ${a} vs ${e}`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(e)));
  });
}

let dir: string;
const files = { tn: '', tx: '', pr: '', tnK: '', txK: '', tgK: '' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratus-etccdi-'));
  const grid = (values: Float64Array): DailyGrid => ({ start: '2019-01-03', days: DAYS, lat: LAT, lon: LON, values });
  const kelvin = (values: Float64Array) => values.map((v) => v + 273.15);
  const mean = data.tmin.map((v, i) => (v + data.tmax[i]!) / 2);
  files.tn = await writeNetcdf(dir, 'tn', 'degC', grid(data.tmin));
  files.tx = await writeNetcdf(dir, 'tx', 'degC', grid(data.tmax));
  files.pr = await writeNetcdf(dir, 'pr', 'mm', grid(data.pr));
  files.tnK = await writeNetcdf(dir, 'tnK', 'K', grid(kelvin(data.tmin)));
  files.txK = await writeNetcdf(dir, 'txK', 'K', grid(kelvin(data.tmax)));
  files.tgK = await writeNetcdf(dir, 'tgK', 'K', grid(kelvin(mean)));
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
    expectSame(await stratus(process, { data: cubes[variable] }), await cdo(dir, [operator, files[file]]), true, process);
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
    expectSame(await stratus('etccdi_sdii', { data: cubes.precipitation }), await perYear('eca_sdii'), false, 'sdii');
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
      start: '2019-01-03',
      days: 1,
      lat: LAT,
      lon: LON,
      values: new Float64Array(CELLS).fill(1),
    });
    const actual = await stratus('etccdi_gsl', { tmin: cubes.tmin, tmax: cubes.tmax });
    expectSame(actual, await cdo(dir, ['eca_gsl', files.tgK, `-seltimestep,1`, mask]), true, 'gsl');
  });

  it.each([
    ['etccdi_r95ptot', 'etccdi_r95p'],
    ['etccdi_r99ptot', 'etccdi_r99p'],
  ] as const)('%s equals %s', async (process, operator) => {
    const base = ['-selyear,2019/2021', files.pr];
    const reference = await cdo(dir, [`${operator},5,2019,2021`, files.pr, '-timmin', ...base, '-timmax', ...base], {
      CDO_PCTL_NBINS: '1000',
    });
    expectSame(await stratus(process, { data: cubes.precipitation, base_period: BASE }), reference, false, process);
  });

  it.each([
    ['etccdi_tn10p', 'tmin'],
    ['etccdi_tx10p', 'tmax'],
    ['etccdi_tn90p', 'tmin'],
    ['etccdi_tx90p', 'tmax'],
  ] as const)('%s per month and per year equals CDO with its bootstrap', async (process, variable) => {
    const file = variable === 'tmin' ? files.tn : files.tx;
    const base = ['-selyear,2019/2021', file];
    for (const frequency of ['month', 'year'] as const) {
      const operator = `${process},5,2019,2021${frequency === 'month' ? ',m' : ''}`;
      const reference = await cdo(dir, [operator, file, '-ydrunmin,5', ...base, '-ydrunmax,5', ...base], {
        CDO_PCTL_NBINS: '1000',
      });
      const actual = await stratus(process, { data: cubes[variable], frequency, base_period: BASE });
      expectSame(actual, reference, false, `${process} ${frequency}`);
    }
  });

  it.each([
    ['etccdi_wsdi', 'tmax', 90],
    ['etccdi_csdi', 'tmin', 10],
  ] as const)('%s equals CDO over thresholds of the base period', async (process, variable, percentile) => {
    const file = variable === 'tmin' ? files.tn : files.tx;
    const base = ['-selyear,2019/2021', file];
    const thresholds = ['-ydrunpctl,' + percentile + ',5', ...base, '-ydrunmin,5', ...base, '-ydrunmax,5', ...base];
    const reference = await cdo(dir, [`${process},6,freq=year`, file, ...thresholds], { CDO_PCTL_NBINS: '1000' });
    const actual = await stratus(process, { data: cubes[variable], base_period: BASE });
    expectSame(actual, reference, true, process);
  });
});
