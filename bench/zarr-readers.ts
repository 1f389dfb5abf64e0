/**
 * `/zarr` as a reader feels it: Python xarray (zarr-python over fsspec's HTTP file system, `bench/zarr-reader.py`)
 * loading a whole store through Stratus's `/zarr/{id}/` against nginx serving the same version directory, with as
 * many nginx workers as Stratus has API processes. Two stores written by Stratus's own writer from the sample
 * provider: a year of daily data and ten years. Each run starts both servers afresh and a fresh Python process per
 * side: its first load is the cold row (new server, new client; the page cache is warm on both), the loads after it
 * the warm row. The sides alternate which goes first from run to run. Beside the seconds, the CPU seconds each
 * side's server processes spent while the reader ran (an information column: wall time on a shared machine is
 * noisy). `node bench/zarr-readers.ts` runs it alone
 * (BENCH_RUNS, BENCH_ZARR_PROCESSES, BENCH_READER_YEARS, BENCH_READER_LOADS).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { datasetKind } from '../core/resources/dataset/schema.ts';
import { API_VERSION } from '../core/resources/registry.ts';
import { versionPath } from '../core/stores/layout.ts';
import { openCubeSink } from '../core/stores/open.ts';
import { setCurrentVersion } from '../test/support/current-version.ts';
import { sampleDays } from './coverage-union.ts';
import type { Headline } from './headline.ts';
import { startNginx } from './peers.ts';
import { childProcesses, cpuSecondsOf } from './process-cpu.ts';
import { benchRuns, median, medianRange, times } from './summary.ts';
import { startEmbedded } from './zarr-serving.ts';

const run = promisify(execFile);
const READER = join(import.meta.dirname, 'zarr-reader.py');
const PYTHON = '/usr/bin/python3';
const GOAL = 0.9;

export interface ZarrReadersOptions {
  runs: number;
  processes: number[];
  /** Years of daily data of each store. */
  years: number[];
  /** Warm loads after the first, per run and side. */
  warmLoads: number;
}

export function zarrReadersOptions(env: NodeJS.ProcessEnv): ZarrReadersOptions {
  return {
    runs: benchRuns(env),
    processes: (env.BENCH_ZARR_PROCESSES ?? '1,2').split(',').map(Number),
    years: (env.BENCH_READER_YEARS ?? '1,10').split(',').map(Number),
    warmLoads: Number(env.BENCH_READER_LOADS ?? 3),
  };
}

export interface ReaderFigures {
  store: string;
  processes: number;
  /** Values in the store's variable, as both sides' loads counted them. */
  values: number;
  /** Seconds of the first load after the servers started, one per run. */
  cold: { stratus: number[]; nginx: number[] };
  /** Median seconds of the warm loads, one per run. */
  warm: { stratus: number[]; nginx: number[] };
  /** CPU seconds of each side's server processes over a reader's loads (the cold one and the warm ones), one per run. */
  cpu: { stratus: number[]; nginx: number[] };
}

interface ReaderRun {
  seconds: number[];
  values: [number, number];
}

/**
 * CPU seconds so far of Stratus's API processes: this one (embedded mode serves from the process that starts it)
 * and the others it started, which run Node as this one does (the reader and nginx run other programs).
 */
async function stratusCpuSeconds(): Promise<number> {
  const { user, system } = process.cpuUsage();
  const others = (await childProcesses(process.pid)).filter((child) => child.executable === process.execPath);
  const seconds = await Promise.all(others.map((child) => cpuSecondsOf(child.pid)));
  return (user + system) / 1e6 + seconds.reduce((sum, s) => sum + s, 0);
}

/** CPU seconds so far of an nginx's workers (its master only starts and watches them). */
async function nginxCpuSeconds(master: number): Promise<number> {
  const seconds = await Promise.all((await childProcesses(master)).map((worker) => cpuSecondsOf(worker.pid)));
  return seconds.reduce((sum, s) => sum + s, 0);
}

async function readAll(url: string, loads: number): Promise<ReaderRun> {
  const { stdout } = await run(PYTHON, [READER, url, String(loads)], {
    env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' },
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as ReaderRun;
}

/** A daily store of `years` years from the sample provider, written as the ingestion writes a version. */
async function writeStore(root: string, name: string, years: number): Promise<void> {
  const { session, periods } = await sampleDays(years);
  const dir = join(root, 'store', versionPath(name, 'v1'));
  await mkdir(dir, { recursive: true });
  const sink = await openCubeSink(
    dir,
    { format: 'zarr', zarrVersion: 2 },
    { variable: 'value', periodType: 'daily', periods, grid: session.grid, attributes: { title: name } },
  );
  for (const period of periods) await sink.append(await session.read(period));
  await sink.finish();
}

export async function benchZarrReaders(options: ZarrReadersOptions): Promise<ReaderFigures[]> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-readers-'));
  const stores = options.years.map((years) => ({ name: `daily-${years}y`, years }));
  const figures: ReaderFigures[] = [];
  try {
    for (const store of stores) await writeStore(root, store.name, store.years);
    for (const processes of options.processes) {
      const rows = stores.map((store) => ({
        store: `${store.years} year(s) daily`,
        processes,
        values: 0,
        cold: { stratus: [] as number[], nginx: [] as number[] },
        warm: { stratus: [] as number[], nginx: [] as number[] },
        cpu: { stratus: [] as number[], nginx: [] as number[] },
      }));
      for (let r = 0; r < options.runs; r++) {
        const stratus = await startEmbedded(root, processes);
        const nginxes = await Promise.all(
          stores.map((store) =>
            startNginx(
              join(root, `nginx-${store.name}`),
              `/zarr/${store.name}/`,
              join(root, 'store', versionPath(store.name, 'v1')),
              processes,
            ),
          ),
        );
        try {
          for (const store of stores) {
            await stratus.cluster.apply(datasetKind, {
              apiVersion: API_VERSION,
              kind: 'Dataset',
              metadata: { name: store.name, namespace: 'default' },
              spec: { source: 'sample', datasetName: store.name, itemType: 'coverage', format: 'zarr' },
            });
            await setCurrentVersion(stratus.cluster, store.name, 'v1');
          }
          // Every API process follows the version switch by its own watch: wait until each store's metadata answers.
          for (const store of stores) await answered(`${stratus.url}/zarr/${store.name}/.zmetadata`);
          for (const [i, store] of stores.entries()) {
            const row = rows[i]!;
            const nginx = nginxes[i]!;
            const sides = [
              { name: 'stratus' as const, url: `${stratus.url}/zarr/${store.name}/`, cpu: stratusCpuSeconds },
              {
                name: 'nginx' as const,
                url: `${nginx.url}/zarr/${store.name}/`,
                cpu: () => nginxCpuSeconds(nginx.pid),
              },
            ];
            if (r % 2 === 1) sides.reverse();
            for (const side of sides) {
              const cpuBefore = await side.cpu();
              const read = await readAll(side.url, 1 + options.warmLoads);
              row.cpu[side.name].push((await side.cpu()) - cpuBefore);
              if (row.values === 0) row.values = read.values[0];
              if (read.values[0] !== row.values) throw new Error(`${side.name} served ${read.values[0]} values`);
              row.cold[side.name].push(read.seconds[0]!);
              row.warm[side.name].push(median(read.seconds.slice(1)));
            }
          }
        } finally {
          await Promise.all(nginxes.map((nginx) => nginx.stop()));
          await stratus.stop();
        }
      }
      figures.push(...rows);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return figures;
}

async function answered(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const response = await fetch(url).catch(() => undefined);
    await response?.arrayBuffer();
    if (response?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} never answered`);
}

const seconds = (n: number) => `${n.toFixed(2)} s`;
const ratios = (side: { stratus: number[]; nginx: number[] }) => side.nginx.map((n, i) => n / side.stratus[i]!);

export function zarrReadersReport(figures: ReaderFigures[], options: ZarrReadersOptions): string[] {
  const lines = [
    `/zarr read by Python xarray (zarr-python over fsspec HTTP), whole store loaded; ${options.runs} runs, ` +
      `${options.warmLoads} warm loads each: median (range); server CPU: the CPU seconds of each side's server ` +
      `processes over a reader's ${1 + options.warmLoads} loads`,
    '| store | values | processes | cold: Stratus | cold: nginx | cold ratio | warm: Stratus | warm: nginx | warm ratio | server CPU: Stratus | server CPU: nginx |',
    '| --- | ---: | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const f of figures)
    lines.push(
      `| ${f.store} | ${f.values.toLocaleString('en-US')} | ${f.processes} | ${medianRange(f.cold.stratus, seconds)} | ` +
        `${medianRange(f.cold.nginx, seconds)} | ${medianRange(ratios(f.cold), times)} | ` +
        `${medianRange(f.warm.stratus, seconds)} | ${medianRange(f.warm.nginx, seconds)} | ${medianRange(ratios(f.warm), times)} | ` +
        `${medianRange(f.cpu.stratus, seconds)} | ${medianRange(f.cpu.nginx, seconds)} |`,
    );
  return lines;
}

/** The rows of the table of current figures: a whole-store load, nginx seconds over Stratus seconds. */
export function zarrReadersHeadlines(figures: ReaderFigures[]): Headline[] {
  return figures.flatMap((f) =>
    (['cold', 'warm'] as const).map((state) => ({
      figure: `/zarr whole-store load by xarray, ${f.store} (${f.values.toLocaleString('en-US')} values), ${f.processes} process(es), ${state}`,
      peer: `nginx (Debian) serving the same files, ${f.processes} worker(s), sendfile, open_file_cache; the same xarray client`,
      ratios: ratios(f[state]),
      goal: GOAL,
      command: 'node bench/zarr-readers.ts',
    })),
  );
}

if (import.meta.main) {
  const options = zarrReadersOptions(process.env);
  console.log(zarrReadersReport(await benchZarrReaders(options), options).join('\n'));
  process.exit(0);
}
