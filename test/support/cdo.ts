/**
 * Debian's CDO (Climate Data Operators, installed by `scripts/install-interop-tools.sh`) as a reference: daily
 * grids written as netCDF through `ncgen` (netcdf-bin), operator chains run with `cdo`, and their values read back.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** CDO's missing value in the files written here. */
const FILL = -9e33;

export interface DailyGrid {
  /** The first day, `YYYY-MM-DD`. */
  start: string;
  days: number;
  lat: number[];
  lon: number[];
  /** Values in time, lat, lon order (C order); NaN is missing. */
  values: Float64Array;
}

/** Writes variable `name` (with CF `units`) of `grid` as netCDF at `dir/name.nc` and returns the path. */
export async function writeNetcdf(dir: string, name: string, units: string, grid: DailyGrid): Promise<string> {
  const list = (values: ArrayLike<number>) => Array.from(values, (v) => (Number.isNaN(v) ? '_' : String(v))).join(', ');
  const cdl = `netcdf ${name} {
dimensions:
  time = UNLIMITED ; lat = ${grid.lat.length} ; lon = ${grid.lon.length} ;
variables:
  double time(time) ; time:units = "days since ${grid.start} 00:00:00" ; time:calendar = "standard" ;
  double lat(lat) ; lat:units = "degrees_north" ;
  double lon(lon) ; lon:units = "degrees_east" ;
  double ${name}(time, lat, lon) ; ${name}:units = "${units}" ; ${name}:_FillValue = ${FILL} ;
data:
  time = ${list(Array.from({ length: grid.days }, (_, i) => i))} ;
  lat = ${list(grid.lat)} ;
  lon = ${list(grid.lon)} ;
  ${name} = ${list(grid.values)} ;
}
`;
  const cdlPath = join(dir, `${name}.cdl`);
  const path = join(dir, `${name}.nc`);
  await writeFile(cdlPath, cdl);
  await run('ncgen', ['-k', 'classic', '-o', path, cdlPath]);
  return path;
}

/** Runs `cdo` with `args` (operators and input files) into a new file in `dir`, and returns its path. */
export async function cdoFile(dir: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}.nc`);
  try {
    await run('cdo', ['-s', '-O', ...args, out], { cwd: dir, env: { ...process.env, ...env }, maxBuffer: 1 << 26 });
  } catch (err) {
    throw new Error(`cdo ${args.join(' ')} failed: ${(err as { stderr?: string }).stderr ?? err}`, { cause: err });
  }
  return out;
}

/**
 * Runs `cdo` with `args` and returns the values of the output's first variable per time step (C order over the
 * grid), NaN where CDO wrote its missing value.
 */
export async function cdo(dir: string, args: string[], env: Record<string, string> = {}): Promise<number[][]> {
  const out = await cdoFile(dir, args, env);
  const { stdout } = await run('cdo', ['-s', 'outputtab,name,date,value', out], { maxBuffer: 1 << 26 });
  const steps = new Map<string, number[]>();
  let first: string | undefined;
  for (const line of stdout.split('\n')) {
    const [name, date, value] = line.trim().split(/\s+/);
    if (!name || name.startsWith('#') || date === undefined || value === undefined) continue;
    first ??= name;
    if (name !== first) continue;
    const v = Number(value);
    if (!steps.has(date)) steps.set(date, []);
    steps.get(date)!.push(Math.abs(v - FILL) < 1e27 || Number.isNaN(v) ? NaN : v);
  }
  return [...steps.values()];
}
