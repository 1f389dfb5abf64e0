/**
 * SPI and SPEI against a reference written here in Python with SciPy (Debian's python3-scipy): its own monthly
 * totals, `scipy.stats.gamma.fit(..., floc=0)` (maximum likelihood) with the zero-precipitation probability for
 * SPI, and for SPEI its own Hargreaves PET, probability-weighted moments and `scipy.stats.fisk` (the log-logistic),
 * then `scipy.stats.norm.ppf`. Agreement: 1e-6 absolute in the index (both solve the same likelihood equation to
 * about 1e-12; the remaining difference is the normal quantile's and the incomplete gamma's rounding).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cubeOf, run, spatial, temporal, valuesOf } from '../../../test/support/cubes.ts';
import { python } from '../../../test/support/python.ts';
import type { DataCube } from '../cube/cube.ts';
import { normalQuantile } from './distributions.ts';

const FIRST_YEAR = 1991;
const YEARS = 20;
const DAYS = Math.round((Date.UTC(FIRST_YEAR + YEARS, 0, 1) - Date.UTC(FIRST_YEAR, 0, 1)) / 86_400_000);
const CELLS = 2;
const LATITUDE = 8.5;
/** The day whose nodata makes its month (and the accumulations over it) nodata in cell 0. */
const NODATA_DAY = 400;

/** A small deterministic generator (xorshift32), so the series is the same on every run. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
}

/**
 * Daily precipitation (mm day-1), tmin and tmax (degC), day-major with cells inner: cell 0 rains all year, cell 1
 * has a rainless December-March (no fit: nodata) and a rainless November in odd years, so its SPI-1 of November
 * meets the probability of zero precipitation.
 */
function series() {
  const random = generator(20_240_601);
  const pr = new Float64Array(DAYS * CELLS);
  const tmin = new Float64Array(DAYS * CELLS);
  const tmax = new Float64Array(DAYS * CELLS);
  for (let d = 0; d < DAYS; d++) {
    const month = new Date(Date.UTC(FIRST_YEAR, 0, 1 + d)).getUTCMonth();
    const season = 0.5 + 0.5 * Math.sin(((month - 3) / 12) * 2 * Math.PI);
    for (let c = 0; c < CELLS; c++) {
      const i = d * CELLS + c;
      const year = FIRST_YEAR + Math.floor(d / 365.25);
      const dry = c === 1 && (month === 11 || month <= 2 || (month === 10 && year % 2 === 1));
      const wet = random() < 0.2 + 0.5 * season;
      pr[i] = dry || !wet ? 0 : Math.round(-Math.log(1 - random()) * (4 + 12 * season) * 10) / 10;
      tmin[i] = 20 + 3 * season + 2 * random();
      tmax[i] = tmin[i]! + 6 + 6 * (1 - season) + 2 * random();
    }
  }
  pr[NODATA_DAY * CELLS] = NaN;
  return { pr, tmin, tmax };
}

const REFERENCE = String.raw`
import json, sys, math
from datetime import date, timedelta
import numpy as np
from scipy import stats
d = json.load(open(sys.argv[1]))
cells, first_year, cal = d['cells'], d['first_year'], d['calibration']
def grid(name): return np.array([np.nan if v is None else v for v in d[name]], dtype=float).reshape(-1, cells)
pr, tmin, tmax = grid('pr'), grid('tmin'), grid('tmax')
days = [date(first_year, 1, 1) + timedelta(i) for i in range(pr.shape[0])]
months = sorted(set((x.year, x.month) for x in days))
def monthly(daily):
    out = np.zeros((len(months), cells))
    index = {m: k for k, m in enumerate(months)}
    for i, x in enumerate(days): out[index[(x.year, x.month)]] += daily[i]
    return out
def accumulate(m, scale):
    out = np.full(m.shape, np.nan)
    for k in range(scale - 1, m.shape[0]): out[k] = m[k - scale + 1:k + 1].sum(axis=0)
    return out
def standardize(acc, fit):
    out = np.full(acc.shape, np.nan)
    for cm in range(1, 13):
        rows = [k for k, (y, m) in enumerate(months) if m == cm]
        calib = [k for k in rows if cal[0] <= months[k][0] <= cal[1]]
        for c in range(cells):
            sample = acc[calib, c]; sample = sample[~np.isnan(sample)]
            if len(sample) < 3: continue
            cdf = fit(sample)
            if cdf is None: continue
            for k in rows:
                if not np.isnan(acc[k, c]): out[k, c] = np.clip(stats.norm.ppf(cdf(acc[k, c])), -8.21, 8.21)
    return out
def gamma_fit(sample):
    wet = sample[sample > 0]; q = 1 - len(wet) / len(sample)
    if len(wet) < 2: return None
    a, loc, scale = stats.gamma.fit(wet, floc=0)
    return lambda x: q + (1 - q) * stats.gamma.cdf(x, a, loc=0, scale=scale) if x > 0 else q
def loglogistic_fit(sample):
    x = np.sort(sample); n = len(x); f = (np.arange(1, n + 1) - 0.35) / n
    w0, w1, w2 = [np.mean((1 - f) ** s * x) for s in range(3)]
    beta = (2 * w1 - w0) / (6 * w1 - w0 - 6 * w2)
    g = math.gamma(1 + 1 / beta) * math.gamma(1 - 1 / beta)
    alpha = (w0 - 2 * w1) * beta / g
    return lambda v: stats.fisk.cdf(v, beta, loc=w0 - alpha * g, scale=alpha)
def hargreaves(i, x):
    j = x.timetuple().tm_yday; phi = math.radians(d['latitude'])
    dr = 1 + 0.033 * math.cos(2 * math.pi * j / 365); delta = 0.409 * math.sin(2 * math.pi * j / 365 - 1.39)
    ws = math.acos(-math.tan(phi) * math.tan(delta))
    ra = 24 * 60 / math.pi * 0.082 * dr * (ws * math.sin(phi) * math.sin(delta) + math.cos(phi) * math.cos(delta) * math.sin(ws))
    return 0.0023 * 0.408 * ra * ((tmin[i] + tmax[i]) / 2 + 17.8) * np.sqrt(tmax[i] - tmin[i])
balance = pr - np.array([hargreaves(i, x) for i, x in enumerate(days)])
P, D = monthly(pr), monthly(balance)
out = {f'spi{s}': standardize(accumulate(P, s), gamma_fit) for s in (1, 3, 12)}
out['spei3'] = standardize(accumulate(D, 3), loglogistic_fit)
print(json.dumps({k: [None if np.isnan(v) else float(v) for v in a.ravel()] for k, a in out.items()}))
`;

type Reference = Record<'spi1' | 'spi3' | 'spi12' | 'spei3', (number | null)[]>;

const days = Array.from({ length: DAYS }, (_, d) => new Date(Date.UTC(FIRST_YEAR, 0, 1 + d)).toISOString());
const dims = (band: string) => [
  temporal(days),
  { name: 'bands', type: 'bands' as const, labels: [band] },
  spatial('y', [LATITUDE], 'EPSG:4326'),
  spatial('x', [-11.5, -11.4], 'EPSG:4326'),
];
const CALIBRATION: [number, number] = [1991, 2005];

let dir: string;
let reference: Reference;
const { pr, tmin, tmax } = series();
// Precipitation as a flux (kg m-2 s-1) and tmax in K, so the conversions are part of what is compared.
const precipitation = cubeOf(dims('pr'), (i) => pr[i]! / 86_400, {
  units: { pr: 'kg m-2 s-1' },
  chunkShape: [366, 1, 1, 2],
});
const minimum = cubeOf(dims('tasmin'), (i) => tmin[i]!, { units: { tasmin: 'degC' }, chunkShape: [366, 1, 1, 2] });
const maximum = cubeOf(dims('tasmax'), (i) => tmax[i]! + 273.15, {
  units: { tasmax: 'K' },
  chunkShape: [366, 1, 1, 2],
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratus-spi-'));
  const input = join(dir, 'input.json');
  const list = (a: Float64Array) => Array.from(a, (v) => (Number.isNaN(v) ? null : v));
  await writeFile(
    input,
    JSON.stringify({
      cells: CELLS,
      first_year: FIRST_YEAR,
      latitude: LATITUDE,
      calibration: CALIBRATION,
      pr: list(pr),
      tmin: list(tmin),
      tmax: list(tmax),
    }),
  );
  reference = await python<Reference>(REFERENCE, [input], 120_000);
}, 150_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

function expectAgreement(name: string, actual: number[], expected: (number | null)[]) {
  expect(actual).toHaveLength(expected.length);
  const deviation = actual.reduce((max, v, i) => Math.max(max, Math.abs(v - (expected[i] ?? NaN)) || 0), 0);
  console.info(`${name}: largest difference from SciPy ${deviation.toExponential(1)}`);
  actual.forEach((v, i) => {
    const want = expected[i];
    if (want === null || want === undefined) expect(v, `month ${Math.floor(i / CELLS)} cell ${i % CELLS}`).toBeNaN();
    else
      expect(Math.abs(v - want), `month ${Math.floor(i / CELLS)} cell ${i % CELLS}: ${v} vs ${want}`).toBeLessThan(
        1e-6,
      );
  });
}

describe('SPI and SPEI against the SciPy reference', () => {
  for (const scale of [1, 3, 12] as const)
    it(`SPI-${scale}: monthly totals, gamma by maximum likelihood, zero precipitation, calibration ${CALIBRATION.join('-')}`, async () => {
      const spi = (await run('spi', { data: precipitation, scale, calibration_period: CALIBRATION })) as DataCube;
      expect(spi.dimension('t')!.labels).toHaveLength(YEARS * 12);
      expect(spi.dimension('t')!.labels[0]).toBe('1991-01');
      expect(spi.dimension('bands')!.labels).toEqual(['spi']);
      expect(spi.metadata.units).toEqual({ spi: '1' });
      expectAgreement(`SPI-${scale}`, await valuesOf(spi), reference[`spi${scale}`]);
    });

  it('SPI-1 of a rainless month is the quantile of the zero-precipitation probability, and a month with nodata is nodata', async () => {
    const values = await valuesOf(
      (await run('spi', { data: precipitation, scale: 1, calibration_period: CALIBRATION })) as DataCube,
    );
    // November 1991, cell 1: rainless, as in 8 of the 15 calibration years.
    expect(values[10 * CELLS + 1]).toBeCloseTo(normalQuantile(8 / 15), 9);
    expect(normalQuantile(8 / 15)).toBeCloseTo(0.0837, 4);
    // January 1995, cell 1: rainless every year, so there is nothing to fit: nodata.
    expect(values[4 * 12 * CELLS + 1]).toBeNaN();
    // The month of the nodata day (February 1992) in cell 0.
    expect(values[13 * CELLS]).toBeNaN();
    expect(reference.spi1[13 * CELLS]).toBeNull();
  });

  it('leaves a month the daily data covers in part nodata, and fits the others as before', async () => {
    const late = cubeOf([temporal(days.slice(14)), ...dims('pr').slice(1)], (i) => pr[i + 14 * CELLS]!, {
      units: { pr: 'mm day-1' },
    });
    const values = await valuesOf(
      (await run('spi', { data: late, scale: 1, calibration_period: CALIBRATION })) as DataCube,
    );
    // January 1991 starts on the 15th; February 1991 has the calibration it had with the whole month of January.
    expect(values.slice(0, CELLS)).toEqual([NaN, NaN]);
    expect(values[CELLS]! - reference.spi1[CELLS]!).toBeCloseTo(0, 6);
  });

  it('SPEI-3: Hargreaves PET, log-logistic by probability-weighted moments', async () => {
    const spei = (await run('spei', {
      precipitation,
      tmin: minimum,
      tmax: maximum,
      scale: 3,
      calibration_period: CALIBRATION,
    })) as DataCube;
    expect(spei.dimension('bands')!.labels).toEqual(['spei']);
    expectAgreement('SPEI-3', await valuesOf(spei), reference.spei3);
  });

  it('refuses precipitation in a temperature unit, and a calibration period outside the data', async () => {
    await expect(run('spi', { data: minimum, scale: 3 })).rejects.toMatchObject({
      code: 'ProcessParameterInvalid',
      message: expect.stringMatching(/variable 'tasmin' has units 'degC'; expected precipitation in 'mm day-1'/),
    });
    await expect(run('spi', { data: precipitation, scale: 3, calibration_period: [1961, 1990] })).rejects.toMatchObject(
      {
        code: 'ProcessParameterInvalid',
      },
    );
  });
});
