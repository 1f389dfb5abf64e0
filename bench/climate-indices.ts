/**
 * The ETCCDI indices of `core/processing/indices/` over daily cubes read from Stratus Zarr stores, against Debian's
 * CDO (`etccdi_*`, `eca_*` and statistics operators, as test/interop/etccdi-cdo.test.ts drives them) over the same
 * values as netCDF, compressed as the store is (`NETCDF_NAMES`). The data are generated: minimum and maximum temperature with a seasonal cycle and noise,
 * precipitation wet on 40% of days, in quarters (exact in single precision), streamed day by day into the stores
 * and into raw planes that bench/indices-netcdf.py writes as netCDF with the netCDF C library (temperatures in
 * kelvin in double precision, as CDO's temperature indices take them). Each row is one index on one thread each
 * (CDO `-P 1`; Stratus with its worker pool off, decoding on the thread that computes), and one all-cores row
 * (CDO `-P <cores>`, Stratus decoding on its pool). Seconds are the median of BENCH_RUNS runs of each side, the
 * index's whole computation: a Stratus run opens the stores and materializes the index; a CDO run is every command
 * the index needs, percentile thresholds of the base period included. TN10p, TX10p, TN90p and TX90p run against
 * CDO's bootstrapping operators (`etccdi_tn10p,5,<first>,<last>` ...), like for like, and the last run's values of
 * both are compared; their `<index>-no-bootstrap` rows, information only, run `ydrunpctl` then `eca_tn10p` ..., one
 * set of thresholds for every year. Each run's CPU seconds are kept beside its wall seconds (Stratus's process,
 * every thread; CDO's through `/usr/bin/time`): on a shared machine they move less with the load. SPI-3 runs against
 * the SciPy peer (bench/spi-peer.py) over the precipitation's netCDF file, one thread each. The cube is BENCH_YEARS
 * years of BENCH_SIZE x BENCH_SIZE cells; BENCH_INDICES_ONLY (row names: process ids, `<index>-no-bootstrap` and
 * `spi`, comma-separated) picks rows. BENCH_STORE_CODECS (comma-separated, `zlib` by default) names the stores'
 * chunk codecs, a set of rows each: `zlib` (level 1, what the writers store by default; CDO reads netCDF-4 deflated
 * at level 1) and `none` (uncompressed; CDO reads classic netCDF).
 * `node bench/climate-indices.ts` runs it alone; `climateIndicesHeadlines` gives its rows.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openStoredCube } from '../core/processing/collections/stored-cube.ts';
import type { DataCube } from '../core/processing/cube/cube.ts';
import { materialize } from '../core/processing/cube/read.ts';
import { runProcessGraph } from '../core/processing/engine.ts';
import { formatPeriod, periodRange } from '../core/periods/index.ts';
import { gridCovering } from '../core/stores/raster-grid.ts';
import { directoryStore } from '../core/stores/directory-store.ts';
import { RasterCubeWriter } from '../core/stores/raster-cube.ts';
import { closeProcessPool, configureProcessPool } from '../core/workers/pool.ts';
import { DEBIAN_PYTHON } from '../test/support/python.ts';
import { seededRandom } from '../test/support/seeded-random.ts';
import type { Headline } from './headline.ts';

const run = promisify(execFile);
const NETCDF_WRITER = join(import.meta.dirname, 'indices-netcdf.py');
const SPI_PEER = join(import.meta.dirname, 'spi-peer.py');
/** The SPI row's accumulation, in months. */
const SPI_SCALE = 3;

type Variable = 'tasmin' | 'tasmax' | 'pr';

/** The stores' chunk codecs the rows may read, and what each writes. */
const STORE_CODECS = { zlib: undefined, none: null } as const;
type StoreCodec = keyof typeof STORE_CODECS;
const CODEC_NAMES: Record<StoreCodec, string> = { zlib: 'zlib level 1', none: 'uncompressed' };
/**
 * CDO's netCDF files for the stores of each codec, like for like: compressed as the store is (netCDF-4 with
 * deflate level 1, a chunk a day as CDO writes one with `-z zip_1`), or uncompressed (classic netCDF, 64-bit
 * offsets).
 */
const NETCDF_NAMES: Record<StoreCodec, string> = {
  zlib: 'netCDF-4 (deflate level 1, a chunk a day)',
  none: 'netCDF (uncompressed)',
};
const VARIABLES: readonly Variable[] = ['tasmin', 'tasmax', 'pr'];
const UNITS: Record<Variable, string> = { tasmin: 'degC', tasmax: 'degC', pr: 'mm day-1' };

/** CDO's inputs: each variable as stored, temperatures in kelvin, the daily mean in kelvin (GSL), a land mask. */
type NetcdfFile = Variable | 'tasminK' | 'tasmaxK' | 'tasK' | 'land';

interface IndexRow {
  process: string;
  /** The row's name where it is not `process`'s: an information row beside the like-for-like one. */
  name?: string;
  /** Why an information row is not like for like (its headline has no goal). */
  unlike?: string;
  /** The process's cube parameters and the variable each takes. */
  inputs: Record<string, Variable>;
  /** Its other arguments. */
  args?: (base: [number, number]) => Record<string, unknown>;
  /**
   * CDO's commands in order over the files; every one but the last ends with its output (`tmp(name)`), the last
   * gets the index's. `base`: the base period as `-selyear`'s argument.
   */
  cdo: (f: Record<NetcdfFile, string>, tmp: (name: string) => string, base: string) => string[][];
  /** CDO's environment over the base period. */
  env?: (base: [number, number]) => Record<string, string>;
  /** Compares days with calendar-day percentile thresholds of a base period. */
  calendarDay?: boolean;
  /** Compares the last run's values of both sides (the index per year, the cube's cells in CDO's order). */
  compare?: boolean;
}

const one = (operator: string[], file: NetcdfFile) => (f: Record<NetcdfFile, string>) => [[...operator, f[file]]];

/** CDO's calendar-day percentile `p` thresholds of `file` over the base years (5-day windows), then `index`. */
function percentileCommands(operator: string, p: number, file: NetcdfFile): IndexRow['cdo'] {
  return (f, tmp, base) => {
    const years = [`-selyear,${base}`, f[file]];
    return [
      ['ydrunmin,5', ...years, tmp('min')],
      ['ydrunmax,5', ...years, tmp('max')],
      [`ydrunpctl,${p},5`, ...years, tmp('min'), tmp('max'), tmp('thresholds')],
      [operator, f[file], tmp('thresholds')],
    ];
  };
}

/**
 * Histogram bins of CDO's percentile operators: window days x base years x 2 + 2 makes CDO keep every value and take
 * R's type 8 percentiles (fewer, and its bootstrapping operators abort on an assertion over this data).
 */
const exactPercentileBins = (base: [number, number]) => ({
  CDO_PCTL_NBINS: String(5 * (base[1] - base[0] + 1) * 2 + 2),
});

/**
 * CDO's bootstrapping operator (`etccdi_tn10p,5,<first>,<last>`, Zhang et al. 2005 over the base years, type 8
 * percentiles) over the whole series, with the window minima and maxima of the base years its histogram needs.
 */
function bootstrapCommands(operator: string, file: NetcdfFile): IndexRow['cdo'] {
  return (f, tmp, base) => {
    const years = [`-selyear,${base}`, f[file]];
    return [
      ['ydrunmin,5', ...years, tmp('min')],
      ['ydrunmax,5', ...years, tmp('max')],
      [`${operator},5,${base.replace('/', ',')}`, f[file], tmp('min'), tmp('max')],
    ];
  };
}

/**
 * CDO's wet-day totals above the base period's percentile `p` of wet days. Wet days are those of at least 1 mm:
 * the values are quarters, so the dry ones are at most 0.75 and become missing below 0.999.
 */
function totalAboveCommands(p: number): IndexRow['cdo'] {
  return (f, tmp, base) => {
    const wet = ['-setrtomiss,-1e30,0.999', `-selyear,${base}`, f.pr];
    return [
      ['timmin', ...wet, tmp('min')],
      ['timmax', ...wet, tmp('max')],
      [`timpctl,${p}`, ...wet, tmp('min'), tmp('max'), tmp('thresholds')],
      ['yearsum', '-mul', f.pr, '-gt', f.pr, tmp('thresholds')],
    ];
  };
}

const temperature = (variable: 'tasmin' | 'tasmax') => ({ data: variable });
const precipitation = { data: 'pr' as const };
const basePeriod = (base: [number, number]) => ({ base_period: base });

const INDICES: readonly IndexRow[] = [
  { process: 'etccdi_fd', inputs: temperature('tasmin'), cdo: one(['etccdi_fd'], 'tasminK') },
  { process: 'etccdi_su', inputs: temperature('tasmax'), cdo: one(['etccdi_su'], 'tasmaxK') },
  { process: 'etccdi_id', inputs: temperature('tasmax'), cdo: one(['etccdi_id'], 'tasmaxK') },
  { process: 'etccdi_tr', inputs: temperature('tasmin'), cdo: one(['etccdi_tr'], 'tasminK') },
  { process: 'etccdi_r10mm', inputs: precipitation, cdo: one(['etccdi_r10mm,freq=year'], 'pr') },
  { process: 'etccdi_r20mm', inputs: precipitation, cdo: one(['etccdi_r20mm,freq=year'], 'pr') },
  { process: 'etccdi_cdd', inputs: precipitation, cdo: one(['etccdi_cdd,1,5,freq=year'], 'pr') },
  { process: 'etccdi_cwd', inputs: precipitation, cdo: one(['etccdi_cwd,1,5,freq=year'], 'pr') },
  { process: 'etccdi_txx', inputs: temperature('tasmax'), cdo: one(['yearmax'], 'tasmax') },
  { process: 'etccdi_tnx', inputs: temperature('tasmin'), cdo: one(['yearmax'], 'tasmin') },
  { process: 'etccdi_txn', inputs: temperature('tasmax'), cdo: one(['yearmin'], 'tasmax') },
  { process: 'etccdi_tnn', inputs: temperature('tasmin'), cdo: one(['yearmin'], 'tasmin') },
  { process: 'etccdi_rx1day', inputs: precipitation, cdo: one(['yearmax'], 'pr') },
  {
    process: 'etccdi_rx5day',
    inputs: precipitation,
    cdo: one(['etccdi_rx5day,50,freq=year', '-runsum,5'], 'pr'),
    env: () => ({ CDO_TIMESTAT_DATE: 'last' }),
  },
  {
    process: 'etccdi_dtr',
    inputs: { tmin: 'tasmin', tmax: 'tasmax' },
    cdo: (f) => [['yearmean', '-sub', f.tasmax, f.tasmin]],
  },
  // Wet days at least 1 mm: the values are quarters, so the dry ones are at most 0.75.
  { process: 'etccdi_sdii', inputs: precipitation, cdo: one(['yearmean', '-setrtomiss,-1e30,0.999'], 'pr') },
  { process: 'etccdi_prcptot', inputs: precipitation, cdo: one(['yearsum', '-setrtoc,-1e30,0.999,0'], 'pr') },
  {
    process: 'etccdi_gsl',
    inputs: { tmin: 'tasmin', tmax: 'tasmax' },
    cdo: (f) => [['eca_gsl', f.tasK, f.land]],
  },
  { process: 'etccdi_r95ptot', inputs: precipitation, args: basePeriod, cdo: totalAboveCommands(95) },
  ...(
    [
      ['etccdi_tn10p', 'tasmin', 10],
      ['etccdi_tx10p', 'tasmax', 10],
      ['etccdi_tn90p', 'tasmin', 90],
      ['etccdi_tx90p', 'tasmax', 90],
    ] as const
  ).flatMap(([process, variable, p]) => [
    {
      process,
      inputs: temperature(variable),
      args: (base: [number, number]) => ({ ...basePeriod(base), frequency: 'year' }),
      cdo: bootstrapCommands(process, variable),
      env: exactPercentileBins,
      calendarDay: true,
      compare: true,
    },
    {
      process,
      name: `${process}-no-bootstrap`,
      unlike: `CDO eca_${process.slice('etccdi_'.length)}: no bootstrap, ydrunpctl's default percentiles, not type 8`,
      inputs: temperature(variable),
      args: basePeriod,
      cdo: percentileCommands(`eca_${process.slice('etccdi_'.length)}`, p, variable),
      calendarDay: true,
    },
  ]),
  ...(
    [
      ['etccdi_wsdi', 'tasmax', 'etccdi_wsdi,6,freq=year', 90],
      ['etccdi_csdi', 'tasmin', 'etccdi_csdi,6,freq=year', 10],
    ] as const
  ).map(([process, variable, operator, p]) => ({
    process,
    inputs: temperature(variable),
    args: basePeriod,
    cdo: percentileCommands(operator, p, variable),
    calendarDay: true,
  })),
];

const rowName = (row: IndexRow) => row.name ?? row.process;

/**
 * The indices of calendar-day percentile thresholds: their bootstrap costs a few tens of milliseconds a cell, so
 * `make bench` runs them over a smaller cube than the others.
 */
export const CALENDAR_DAY_PERCENTILE_INDICES = INDICES.filter((row) => row.calendarDay).map(rowName);

export const CLIMATE_INDEX_PROCESSES = INDICES.map(rowName);

const BASE_PERIOD_INDICES = INDICES.filter((row) => row.args).map(rowName);

/** The index of the all-cores row. */
const ALL_CORES_INDEX = 'etccdi_fd';

/** The three variables of day `d` over `cells` cells, drawing from `random` in a fixed order. */
function day(d: number, cells: number, random: () => number): Record<Variable, Float32Array> {
  const out = { tasmin: new Float32Array(cells), tasmax: new Float32Array(cells), pr: new Float32Array(cells) };
  const quarter = (v: number) => Math.round(v * 4) / 4;
  const season = 9 + 11 * Math.sin((2 * Math.PI * (d - 110)) / 365.25);
  for (let c = 0; c < cells; c++) {
    const mean = season + 4 * (random() - 0.5);
    const range = 6 + 6 * random();
    out.tasmin[c] = quarter(mean - range / 2);
    out.tasmax[c] = quarter(mean + range / 2);
    out.pr[c] = random() < 0.4 ? quarter(-12 * Math.log(1 - random())) : 0;
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function seconds(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return (performance.now() - started) / 1000;
}

/** CPU seconds of this process (all its threads) while `task` runs. */
async function cpuSeconds(task: () => Promise<unknown>): Promise<number> {
  const started = process.cpuUsage();
  await task();
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1e6;
}

/** Runs `cdo` with `args` under `/usr/bin/time`: its user and system CPU seconds. */
async function cdoCpuSeconds(args: string[], env: Record<string, string> | undefined): Promise<number> {
  const { stderr } = await run('/usr/bin/time', ['-f', '%U %S', 'cdo', ...args], { env: { ...process.env, ...env } });
  const [user, system] = stderr.trim().split('\n').at(-1)!.split(' ').map(Number) as [number, number];
  return user + system;
}

export interface ClimateIndexFigures {
  years: number;
  size: number;
  base: [number, number];
  rows: {
    process: string;
    codec: StoreCodec;
    /** The row's name: `process`, or an information row's. */
    name: string;
    /** Why an information row is not like for like. */
    unlike?: string;
    threads: number;
    stratus: number[];
    cdo: number[];
    stratusCpu: number[];
    cdoCpu: number[];
    /** Where both sides' values were compared: per part of the years, the share equal and the largest difference. */
    agreement?: Record<'base' | 'after', Agreement>;
  }[];
  /** SPI-3 against the SciPy peer, calibrated over `base`: seconds of each, and each side's count and sum. */
  spi?: { stratus: number[]; scipy: number[]; check: { stratus: [number, number]; scipy: [number, number] } };
}

interface Agreement {
  values: number;
  equal: number;
  largest: number;
}

/** Both missing, or the same number in single precision (CDO's output). */
const same = (a: number, b: number) => (Number.isNaN(a) && Number.isNaN(b)) || Math.fround(a) === Math.fround(b);

/**
 * Stratus's yearly `ours` (year, cell) against CDO's output `file`, split into the base years and those after: how
 * many values, how many equal, the largest difference where both have one.
 */
async function agreement(ours: ArrayLike<number>, file: string, cells: number, baseYears: number) {
  const { stdout } = await run('cdo', ['-s', 'outputf,%.17g,1', file], { maxBuffer: 1 << 28 });
  // CDO prints missing values as its missing value, the file's NaN fill value as nan.
  const theirs = stdout
    .trim()
    .split('\n')
    .map((line) => {
      const v = Number(line);
      return Number.isNaN(v) || Math.abs(v) > 1e30 ? NaN : v;
    });
  if (theirs.length !== ours.length) throw new Error(`CDO gave ${theirs.length} values, Stratus ${ours.length}`);
  const parts = { base: { values: 0, equal: 0, largest: 0 }, after: { values: 0, equal: 0, largest: 0 } };
  theirs.forEach((t, i) => {
    const part = parts[Math.floor(i / cells) < baseYears ? 'base' : 'after'];
    const o = ours[i]!;
    part.values++;
    if (same(o, t)) part.equal++;
    else if (!Number.isNaN(o - t)) part.largest = Math.max(part.largest, Math.abs(o - t));
  });
  return parts;
}

/** Writes the stores (a set per codec) and CDO's netCDF files under `root`. */
async function writeInputs(root: string, years: number, size: number, codecs: readonly StoreCodec[]) {
  const periods = periodRange(
    'daily',
    '2001-01-01',
    formatPeriod({ type: 'daily', start: new Date(Date.UTC(2001 + years, 0, 0)) }),
  );
  const grid = gridCovering([0, 0, size * 0.05, size * 0.05], 0.05);
  const cells = grid.lat.length * grid.lon.length;
  const stores = {} as Record<StoreCodec, Record<Variable, string>>;
  const writers: RasterCubeWriter[] = [];
  const raws = {} as Record<Variable, Awaited<ReturnType<typeof open>>>;
  for (const codec of codecs) {
    stores[codec] = {} as Record<Variable, string>;
    for (const variable of VARIABLES) {
      stores[codec][variable] = join(root, codec, variable);
      const compressor = STORE_CODECS[codec];
      const writer = await RasterCubeWriter.create(stores[codec][variable], {
        variable,
        units: UNITS[variable],
        periodType: 'daily',
        periods,
        grid,
        attributes: {},
        ...(compressor === undefined ? {} : { compressor }),
      });
      writers.push(writer);
    }
  }
  for (const variable of VARIABLES) raws[variable] = await open(join(root, `${variable}.raw`), 'w');
  const random = seededRandom(7);
  for (let d = 0; d < periods.length; d++) {
    const values = day(d, cells, random);
    for (const [i, writer] of writers.entries()) await writer.append(values[VARIABLES[i % VARIABLES.length]!]);
    for (const variable of VARIABLES) await raws[variable].write(new Uint8Array(values[variable].buffer));
  }
  for (const writer of writers) await writer.finish();
  for (const variable of VARIABLES) await raws[variable].close();
  const netcdf = async (codec: StoreCodec, name: string, units: string, sources: Variable[], kelvin: boolean) => {
    const out = join(root, codec, `${name}.nc`);
    const spec = {
      out,
      name,
      units,
      deflate: codec === 'zlib',
      double: kelvin,
      offset: kelvin ? 273.15 : 0,
      start: '2001-01-01',
      days: periods.length,
      lat: [...grid.lat],
      lon: [...grid.lon],
      raws: sources.map((v) => join(root, `${v}.raw`)),
    };
    await run(DEBIAN_PYTHON, [NETCDF_WRITER, JSON.stringify(spec)]);
    return out;
  };
  const files = {} as Record<StoreCodec, Record<NetcdfFile, string>>;
  for (const codec of codecs) {
    files[codec] = {
      tasmin: await netcdf(codec, 'tasmin', 'degC', ['tasmin'], false),
      tasmax: await netcdf(codec, 'tasmax', 'degC', ['tasmax'], false),
      pr: await netcdf(codec, 'pr', 'mm', ['pr'], false),
      tasminK: await netcdf(codec, 'tasminK', 'K', ['tasmin'], true),
      tasmaxK: await netcdf(codec, 'tasmaxK', 'K', ['tasmax'], true),
      tasK: await netcdf(codec, 'tasK', 'K', ['tasmin', 'tasmax'], true),
      land: join(root, codec, 'land.nc'),
    };
    await run('cdo', ['-s', '-O', '-setrtoc,-1e30,1e30,1', '-seltimestep,1', files[codec].pr, files[codec].land]);
  }
  for (const variable of VARIABLES) await rm(join(root, `${variable}.raw`));
  return { stores, files };
}

export async function benchClimateIndices(
  years = Number(process.env.BENCH_YEARS ?? 20),
  size = Number(process.env.BENCH_SIZE ?? 100),
  runs = Number(process.env.BENCH_RUNS ?? 3),
  only = process.env.BENCH_INDICES_ONLY?.split(','),
  codecs = (process.env.BENCH_STORE_CODECS?.split(',') ?? ['zlib']) as StoreCodec[],
): Promise<ClimateIndexFigures> {
  const unknown = codecs.filter((codec) => !(codec in STORE_CODECS));
  if (unknown.length > 0) throw new Error(`BENCH_STORE_CODECS: no codec ${unknown.join(', ')}`);
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-indices-'));
  const base: [number, number] = [2001, 2000 + Math.min(10, years)];
  const selected = INDICES.filter((row) => !only || only.includes(rowName(row)));
  try {
    const { stores, files } = await writeInputs(root, years, size, codecs);
    const tmp = (name: string) => join(root, `${name}.tmp.nc`);
    const cores = availableParallelism();
    const runs_ = codecs.flatMap((codec) => [
      ...selected.map((row) => ({ row, codec, threads: 1 })),
      ...selected.filter((row) => row.process === ALL_CORES_INDEX).map((row) => ({ row, codec, threads: cores })),
    ]);
    const rows: ClimateIndexFigures['rows'] = [];
    for (const { row, codec, threads } of runs_) {
      // One thread: no worker threads, chunks decoded on the thread that computes; all cores: the pool's.
      configureProcessPool(threads === 1 ? 0 : cores);
      const figures: ClimateIndexFigures['rows'][number] = {
        process: row.process,
        codec,
        name: rowName(row),
        ...(row.unlike ? { unlike: row.unlike } : {}),
        threads,
        stratus: [] as number[],
        cdo: [] as number[],
        stratusCpu: [],
        cdoCpu: [],
      };
      let ours: ArrayLike<number> = [];
      for (let r = 0; r < runs; r++) {
        let cpu = 0;
        figures.stratus.push(
          await seconds(async () => {
            cpu = await cpuSeconds(async () => {
              const args: Record<string, unknown> = row.args?.(base) ?? {};
              for (const [parameter, variable] of Object.entries(row.inputs))
                args[parameter] = await openStoredCube(directoryStore(stores[codec][variable]));
              const index = (await runProcessGraph({
                i: { process_id: row.process, arguments: args, result: true },
              })) as DataCube;
              ours = await materialize(index, Number.MAX_SAFE_INTEGER);
            });
          }),
        );
        figures.stratusCpu.push(cpu);
        const commands = row.cdo(files[codec], tmp, `${base[0]}/${base[1]}`);
        cpu = 0;
        figures.cdo.push(
          await seconds(async () => {
            for (const [i, command] of commands.entries()) {
              const output = i === commands.length - 1 ? [join(root, 'out.nc')] : [];
              cpu += await cdoCpuSeconds(['-P', String(threads), '-s', '-O', ...command, ...output], row.env?.(base));
            }
          }),
        );
        figures.cdoCpu.push(cpu);
      }
      if (row.compare)
        figures.agreement = await agreement(ours, join(root, 'out.nc'), size * size, base[1] - base[0] + 1);
      rows.push(figures);
      console.error(`${figures.name}\t${codec}\t${threads} thread(s)\tdone ${new Date().toISOString()}`);
    }
    if (only && !only.includes('spi')) return { years, size, base, rows };
    const codec = codecs[0]!;
    return { years, size, base, rows, spi: await benchSpi(stores[codec].pr, files[codec].pr, base, runs) };
  } finally {
    await closeProcessPool();
    await rm(root, { recursive: true, force: true });
  }
}

/** SPI-3 of the precipitation store against the SciPy peer over its netCDF twin, one thread each. */
async function benchSpi(store: string, file: string, base: [number, number], runs: number) {
  configureProcessPool(0);
  const figures: NonNullable<ClimateIndexFigures['spi']> = {
    stratus: [],
    scipy: [],
    check: { stratus: [0, 0], scipy: [0, 0] },
  };
  for (let r = 0; r < runs; r++) {
    figures.stratus.push(
      await seconds(async () => {
        const data = await openStoredCube(directoryStore(store));
        const index = (await runProcessGraph({
          i: { process_id: 'spi', arguments: { data, scale: SPI_SCALE, calibration_period: base }, result: true },
        })) as DataCube;
        const values = Array.from(await materialize(index, Number.MAX_SAFE_INTEGER)).filter((v) => !Number.isNaN(v));
        figures.check.stratus = [values.length, values.reduce((a, b) => a + b, 0)];
      }),
    );
    figures.scipy.push(
      await seconds(async () => {
        const args = [SPI_PEER, file, 'pr', String(SPI_SCALE), ...base.map(String)];
        const { stdout } = await run(DEBIAN_PYTHON, args, {
          env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' },
        });
        const { values, sum } = JSON.parse(stdout) as { values: number; sum: number };
        figures.check.scipy = [values, sum];
      }),
    );
  }
  return figures;
}

export function climateIndicesHeadlines(f: ClimateIndexFigures): Headline[] {
  const spi: Headline[] = f.spi
    ? [
        {
          figure: `SPI-${SPI_SCALE}, ${f.years} years daily over ${f.size} x ${f.size} cells from a Zarr store, calibration ${f.base[0]}-${f.base[1]}, one thread`,
          peer: 'SciPy 1.10 (Debian): numpy monthly sums, gamma.fit per calendar month and cell, netCDF',
          ratios: f.spi.scipy.map((s, i) => s / f.spi!.stratus[i]!),
          goal: 5,
          command: 'BENCH_INDICES_ONLY=spi node bench/climate-indices.ts',
        },
      ]
    : [];
  return [
    ...f.rows.map((row) => ({
      figure: `${row.name}, ${f.years} years daily over ${f.size} x ${f.size} cells from a Zarr store (${CODEC_NAMES[row.codec]})${
        BASE_PERIOD_INDICES.includes(row.name) ? `, base period ${f.base[0]}-${f.base[1]}` : ''
      }, ${row.threads === 1 ? 'one thread' : `${row.threads} threads (all cores)`}${
        row.unlike ? ` (information, not like for like: ${row.unlike})` : ''
      }`,
      peer: `CDO 2.1.1 (Debian), ${NETCDF_NAMES[row.codec]}, -P ${row.threads}`,
      ratios: row.cdo.map((c, i) => c / row.stratus[i]!),
      ...(row.unlike ? {} : { goal: 1 }),
      command: `BENCH_INDICES_ONLY=${row.name} BENCH_STORE_CODECS=${row.codec} node bench/climate-indices.ts`,
    })),
    ...spi,
  ];
}

if (import.meta.main) {
  const figures = await benchClimateIndices();
  for (const row of figures.rows)
    console.log(
      `${row.name}\t${row.codec}\t${row.threads} thread(s)\tstratus ${median(row.stratus).toFixed(3)} s\tcdo ${median(row.cdo).toFixed(3)} s\tratio ${(median(row.cdo) / median(row.stratus)).toFixed(2)}\tCPU stratus ${median(row.stratusCpu).toFixed(3)} s\tcdo ${median(row.cdoCpu).toFixed(3)} s\tratio ${(median(row.cdoCpu) / median(row.stratusCpu)).toFixed(2)}`,
    );
  for (const row of figures.rows)
    for (const [part, { values, equal, largest }] of Object.entries(row.agreement ?? {}))
      console.log(
        `${row.name}\tagreement, ${part} years\t${equal} of ${values} values equal, largest difference ${largest}`,
      );
  if (figures.spi) {
    const { stratus, scipy, check } = figures.spi;
    console.log(
      `spi\tstratus ${median(stratus).toFixed(3)} s\tscipy ${median(scipy).toFixed(3)} s\tratio ${(median(scipy) / median(stratus)).toFixed(2)}\t(count, sum) ${JSON.stringify(check)}`,
    );
  }
  console.log(JSON.stringify(climateIndicesHeadlines(figures), null, 1));
  process.exit(0);
}
