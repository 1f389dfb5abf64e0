/**
 * The ETCCDI indices of `core/processing/indices/` over a daily cube read from a Stratus Zarr store, against
 * Debian's CDO (`etccdi_*` and `year*` operators, as test/interop/etccdi-cdo.test.ts drives them) over the same
 * values as netCDF; one thread each (CDO `-P 1`, the engine in this process). The data are generated: minimum and
 * maximum temperature with a seasonal cycle and noise, precipitation wet on 40% of days. Seconds are the median of
 * BENCH_RUNS runs of each side, the index's whole computation including reading its input; a Stratus run reads
 * the store, materializes the index. The cube is BENCH_YEARS years of BENCH_SIZE x BENCH_SIZE cells.
 * `node bench/climate-indices.ts` runs it alone; `climateIndicesHeadlines` gives its rows.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
import { writeNetcdf } from '../test/support/cdo.ts';
import { seededRandom } from '../test/support/seeded-random.ts';
import type { Headline } from './headline.ts';

const run = promisify(execFile);

type Variable = 'tasmin' | 'tasmax' | 'pr';

/** Each index: its Stratus process, the CDO operator chain over the variable's file, and the variable. */
const INDICES: [process: string, operator: string[], variable: Variable, kelvin: boolean][] = [
  ['etccdi_fd', ['etccdi_fd'], 'tasmin', true],
  ['etccdi_su', ['etccdi_su'], 'tasmax', true],
  ['etccdi_id', ['etccdi_id'], 'tasmax', true],
  ['etccdi_tr', ['etccdi_tr'], 'tasmin', true],
  ['etccdi_r10mm', ['etccdi_r10mm,freq=year'], 'pr', false],
  ['etccdi_r20mm', ['etccdi_r20mm,freq=year'], 'pr', false],
  ['etccdi_cdd', ['etccdi_cdd,1,5,freq=year'], 'pr', false],
  ['etccdi_cwd', ['etccdi_cwd,1,5,freq=year'], 'pr', false],
  ['etccdi_txx', ['yearmax'], 'tasmax', false],
  ['etccdi_tnx', ['yearmax'], 'tasmin', false],
  ['etccdi_txn', ['yearmin'], 'tasmax', false],
  ['etccdi_tnn', ['yearmin'], 'tasmin', false],
  ['etccdi_rx1day', ['yearmax'], 'pr', false],
];

const UNITS: Record<Variable, string> = { tasmin: 'degC', tasmax: 'degC', pr: 'mm day-1' };

/** The three variables' days, each in time, lat, lon order, in quarters (exact in single precision). */
function generate(days: number, cells: number): Record<Variable, Float32Array> {
  const random = seededRandom(7);
  const out = {
    tasmin: new Float32Array(days * cells),
    tasmax: new Float32Array(days * cells),
    pr: new Float32Array(days * cells),
  };
  const quarter = (v: number) => Math.round(v * 4) / 4;
  for (let d = 0; d < days; d++) {
    const season = 9 + 11 * Math.sin((2 * Math.PI * (d - 110)) / 365.25);
    for (let c = 0; c < cells; c++) {
      const i = d * cells + c;
      const mean = season + 4 * (random() - 0.5);
      const range = 6 + 6 * random();
      out.tasmin[i] = quarter(mean - range / 2);
      out.tasmax[i] = quarter(mean + range / 2);
      out.pr[i] = random() < 0.4 ? quarter(-12 * Math.log(1 - random())) : 0;
    }
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function seconds(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return (performance.now() - started) / 1000;
}

export interface ClimateIndexFigures {
  years: number;
  size: number;
  rows: { process: string; stratus: number[]; cdo: number[] }[];
}

export async function benchClimateIndices(
  years = Number(process.env.BENCH_YEARS ?? 20),
  size = Number(process.env.BENCH_SIZE ?? 500),
  runs = Number(process.env.BENCH_RUNS ?? 3),
): Promise<ClimateIndexFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-indices-'));
  try {
    const periods = periodRange(
      'daily',
      '2001-01-01',
      formatPeriod({ type: 'daily', start: new Date(Date.UTC(2001 + years, 0, 0)) }),
    );
    const grid = gridCovering([0, 0, size * 0.05, size * 0.05], 0.05);
    const cells = grid.lat.length * grid.lon.length;
    const values = generate(periods.length, cells);
    const stores: Partial<Record<Variable, string>> = {};
    const files: Record<string, string> = {};
    for (const variable of ['tasmin', 'tasmax', 'pr'] as const) {
      const dir = join(root, variable);
      const writer = await RasterCubeWriter.create(dir, {
        variable,
        units: UNITS[variable],
        periodType: 'daily',
        periods,
        grid,
        attributes: {},
      });
      for (let d = 0; d < periods.length; d++)
        await writer.append(values[variable].subarray(d * cells, (d + 1) * cells));
      await writer.finish();
      stores[variable] = dir;
      const daily = { start: formatPeriod(periods[0]!), days: periods.length, lat: [...grid.lat], lon: [...grid.lon] };
      const asDouble = Float64Array.from(values[variable]);
      files[variable] = await writeNetcdf(root, variable, variable === 'pr' ? 'mm' : 'degC', {
        ...daily,
        values: asDouble,
      });
      if (variable !== 'pr')
        files[`${variable}K`] = await writeNetcdf(root, `${variable}K`, 'K', {
          ...daily,
          values: asDouble.map((v) => v + 273.15),
        });
    }
    const rows: ClimateIndexFigures['rows'] = [];
    for (const [processId, operator, variable, kelvin] of INDICES) {
      const row = { process: processId, stratus: [] as number[], cdo: [] as number[] };
      for (let r = 0; r < runs; r++) {
        row.stratus.push(
          await seconds(async () => {
            const cube = await openStoredCube(directoryStore(stores[variable]!));
            const index = (await runProcessGraph({
              i: { process_id: processId, arguments: { data: cube }, result: true },
            })) as DataCube;
            await materialize(index, Number.MAX_SAFE_INTEGER);
          }),
        );
        const input = files[kelvin ? `${variable}K` : variable]!;
        row.cdo.push(
          await seconds(() => run('cdo', ['-P', '1', '-s', '-O', ...operator, input, join(root, 'out.nc')])),
        );
      }
      rows.push(row);
    }
    return { years, size, rows };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export function climateIndicesHeadlines(f: ClimateIndexFigures): Headline[] {
  return f.rows.map((row) => ({
    figure: `${row.process}, ${f.years} years daily over ${f.size} x ${f.size} cells from a Zarr store`,
    peer: 'CDO (Debian), netCDF, -P 1',
    ratios: row.cdo.map((c, i) => c / row.stratus[i]!),
    goal: 1,
    command: 'node bench/climate-indices.ts',
  }));
}

if (import.meta.main) {
  const figures = await benchClimateIndices();
  for (const row of figures.rows)
    console.log(
      `${row.process}\tstratus ${median(row.stratus).toFixed(3)} s\tcdo ${median(row.cdo).toFixed(3)} s\tratio ${(median(row.cdo) / median(row.stratus)).toFixed(2)}`,
    );
  console.log(JSON.stringify(climateIndicesHeadlines(figures), null, 1));
  process.exit(0);
}
