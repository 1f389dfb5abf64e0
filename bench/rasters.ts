/**
 * Raster write paths against their peers, several runs:
 * - Zarr writing: RasterCubeWriter against zarr-python 2.13 (Debian) writing the same cube, chunks and codec;
 * - ingestion: a year of daily CHIRPS-like COG windows over a country through the chirps provider into Zarr, in a
 *   process of its own with the workers' Node flags as a worker runs it (bench/ingestion-worker.ts),
 *   against GDAL reading the same windows over HTTP (/vsicurl/) with zarr-python writing them.
 * Both sides fetch from the same nginx. Figures are MB/s of float32 cube written, and periods/s.
 *
 * Each peer runs twice a run. Like for like: as many chunk compressions at once as RasterCubeWriter keeps on
 * libuv's pool (`PARALLEL_CHUNKS`), as many windows read at once as the ingestion's read-ahead (`READ_AHEAD`),
 * and every file flushed to disk as Stratus flushes its keys. As usually run (the older rows of docs/performance.md): one
 * thread, nothing flushed.
 *
 * `node bench/rasters.ts` runs it alone (BENCH_DAYS, BENCH_RUNS); `BENCH_RASTERS=ingestion` (or `write`) runs one
 * section only.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WORKER_NODE_FLAGS } from '../operator/worker/node-flags.ts';
import { formatPeriod, periodRange, type Period } from '../core/periods/index.ts';
import { chirpsUrl } from '../core/providers/chirps.ts';
import { READ_AHEAD } from '../core/providers/read-ahead.ts';
import { sampleProvider } from '../core/providers/sample.ts';
import { chunkShape, PARALLEL_CHUNKS, RasterCubeWriter } from '../core/stores/raster-cube.ts';
import { python } from '../test/support/python.ts';
import { startNginx } from './peers.ts';
import type { Headline } from './headline.ts';
import { benchRuns, medianRange, repeat, times } from './summary.ts';

const PEER = join(import.meta.dirname, 'raster-peer.py');
const WORKER = join(import.meta.dirname, 'ingestion-worker.ts');
const execute = promisify(execFile);
const MAKE_COGS = join(import.meta.dirname, '../test/fixtures/providers/make-cogs.py');
export const SIERRA_LEONE: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];

/** How a peer runs: chunks compressed and written at once, windows read at once, files flushed. */
interface PeerMode {
  writers: number;
  reads: number;
  sync: boolean;
}
const LIKE_FOR_LIKE: PeerMode = { writers: PARALLEL_CHUNKS, reads: READ_AHEAD, sync: true };
const AS_USUALLY_RUN: PeerMode = { writers: 1, reads: 1, sync: false };

/** Seconds of wall clock and of CPU (every thread of the process) that one side took. */
export interface Timing {
  seconds: number;
  cpuSeconds: number;
}

/** One run of a measurement: Stratus, the peer like for like, the peer as usually run. */
export interface RasterSides {
  stratus: Timing;
  peer: Timing;
  peerUsual: Timing;
}

/** The sections of the bench; `BENCH_RASTERS` (comma-separated) picks some, both by default. */
export type RasterSection = 'write' | 'ingestion';
export const rasterSections = (env: NodeJS.ProcessEnv = process.env) =>
  (env.BENCH_RASTERS ?? 'write,ingestion').split(',') as RasterSection[];

export interface RasterRun {
  zarrWrite?: RasterSides;
  ingestion?: RasterSides;
}

export interface RasterFigures {
  megabytes: number;
  periods: number;
  runs: RasterRun[];
}

const peerArgs = (mode: PeerMode) => [mode.writers, mode.sync ? 1 : 0];

/** Times `work` in this process, CPU of every thread included (libuv's pool compresses and flushes). */
export async function timed(work: () => Promise<unknown>): Promise<Timing> {
  const [start, cpu] = [performance.now(), process.cpuUsage()];
  await work();
  const { user, system } = process.cpuUsage(cpu);
  return { seconds: (performance.now() - start) / 1000, cpuSeconds: (user + system) / 1e6 };
}

/**
 * Writes the machine's dirty pages out before a side's timed part: a flush forces the file system's journal, which
 * on ext4 also writes out other files' new data, so a side timed right after the other's run would pay its backlog.
 */
const settle = () => execute('sync');

async function runPeer(args: (string | number)[]): Promise<Timing> {
  await settle();
  const { seconds, cpu_seconds } = await python<{ seconds: number; cpu_seconds: number }>(
    await readFile(PEER, 'utf8'),
    args.map(String),
    600_000,
  );
  return { seconds, cpuSeconds: cpu_seconds };
}

/** The sample cube in memory and as the raw float32 file the peer reads; returns one run's writer. */
async function zarrWriteBench(root: string, days: number) {
  const periods = periodRange(
    'daily',
    '2024-01-01',
    formatPeriod({ type: 'daily', start: new Date(Date.UTC(2024, 0, days)) }),
  );
  const session = await sampleProvider.open({
    parameters: { resolution: 0.01 },
    bbox: SIERRA_LEONE,
    signal: new AbortController().signal,
  });
  const planes = await Promise.all(periods.map((p) => session.read(p)));
  const [ny, nx] = [session.grid.lat.length, session.grid.lon.length];
  const megabytes = (planes.length * ny * nx * 4) / 1e6;
  const raw = join(root, 'cube.f32');
  await writeFile(raw, Buffer.concat(planes.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))));
  const [ct, cy, cx] = chunkShape(planes.length, ny, nx);
  const peer = async (mode: PeerMode, out: string) => {
    const timing = await runPeer(['zarr-write', ...peerArgs(mode), raw, planes.length, ny, nx, ct, cy, cx, out]);
    await rm(out, { recursive: true, force: true });
    return timing;
  };
  return {
    megabytes,
    run: async (run: number): Promise<RasterSides> => {
      const out = join(root, `stratus-${run}.zarr`);
      await settle();
      const stratus = await timed(async () => {
        const writer = await RasterCubeWriter.create(out, {
          variable: 'value',
          periodType: 'daily',
          periods,
          grid: session.grid,
          attributes: {},
        });
        for (const plane of planes) await writer.append(plane);
        await writer.finish();
      });
      await rm(out, { recursive: true, force: true });
      return {
        stratus,
        peer: await peer(LIKE_FOR_LIKE, join(root, `peer-${run}.zarr`)),
        peerUsual: await peer(AS_USUALLY_RUN, join(root, `peer-usual-${run}.zarr`)),
      };
    },
  };
}

/**
 * `days` daily CHIRPS-like COGs from 2024-01-01 in CHC's layout under `dir`: a 20 x 20 degree region around the
 * country on CHIRPS's 0.05 degree grid (the global file would be 7200 x 2400). Returns the last day.
 */
export async function makeChirpsCogs(dir: string, days: number): Promise<string> {
  const last = formatPeriod({ type: 'daily', start: new Date(Date.UTC(2024, 0, days)) });
  await python(
    await readFile(MAKE_COGS, 'utf8'),
    [dir, 'rnl/cogs/%Y/chirps-v3.0.rnl.%Y.%m.%d.cog', '2024-01-01', last, '-20', '20', '0.05', '400', '400'],
    600_000,
  );
  return last;
}

/** One run of the ingestion of `periods` from `base` on each side. */
async function ingestionRun(root: string, base: string, periods: Period[], run: number): Promise<RasterSides> {
  const out = join(root, `ingested-${run}.zarr`);
  // Stratus as a worker runs it: a process of its own with the workers' Node flags, as the peer is one of its own.
  await settle();
  const { stdout } = await execute(
    process.execPath,
    [...WORKER_NODE_FLAGS, WORKER, base, formatPeriod(periods[0]!), formatPeriod(periods.at(-1)!), out],
    { maxBuffer: 1 << 20 },
  );
  const { size, ...stratus } = JSON.parse(stdout.trim().split('\n').at(-1)!) as Timing & { size: [number, number] };
  await rm(out, { recursive: true, force: true });

  const urls = join(root, 'urls.txt');
  await writeFile(urls, periods.map((p) => chirpsUrl(base, 'rnl', formatPeriod(p))).join('\n'));
  const [ct, cy, cx] = chunkShape(periods.length, ...size);
  const peer = async (mode: PeerMode) => {
    const peerOut = join(root, `peer-ingested-${run}.zarr`);
    const timing = await runPeer(['ingest', ...peerArgs(mode), mode.reads, urls, ...SIERRA_LEONE, ct, cy, cx, peerOut]);
    await rm(peerOut, { recursive: true, force: true });
    return timing;
  };
  return { stratus, peer: await peer(LIKE_FOR_LIKE), peerUsual: await peer(AS_USUALLY_RUN) };
}

export async function benchRasters(
  days = 366,
  runs = benchRuns(),
  sections = rasterSections(),
): Promise<RasterFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-rasters-'));
  try {
    const zarrWrite = sections.includes('write') ? await zarrWriteBench(root, days) : undefined;
    const cogs = join(root, 'cogs');
    const last = await makeChirpsCogs(cogs, days);
    const periods = periodRange('daily', '2024-01-01', last);
    const nginx = await startNginx(join(root, 'nginx'), '/final/', cogs);
    try {
      return {
        megabytes: zarrWrite?.megabytes ?? 0,
        periods: periods.length,
        runs: await repeat(runs, async (run) => ({
          zarrWrite: await zarrWrite?.run(run),
          ingestion: sections.includes('ingestion')
            ? await ingestionRun(root, `${nginx.url}/final`, periods, run)
            : undefined,
        })),
      };
    } finally {
      await nginx.stop();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * The table: each rate and ratio as the median of the runs with their range; the CPU ratio is the peer's CPU
 * seconds over Stratus's (above 1: Stratus cheaper), steadier than wall time on a shared machine.
 */
export function rastersReport({ megabytes, periods, runs }: RasterFigures): string[] {
  const rate = (n: number) => n.toFixed(1);
  const row = (
    label: string,
    unit: string,
    work: number,
    sides: RasterSides[],
    peerLabel: string,
    peer: 'peer' | 'peerUsual',
  ) =>
    `| ${label} | ${medianRange(
      sides.map((s) => work / s.stratus.seconds),
      rate,
    )} ${unit} | ${peerLabel}: ${medianRange(
      sides.map((s) => work / s[peer].seconds),
      rate,
    )} ${unit} | ${medianRange(
      sides.map((s) => s[peer].seconds / s.stratus.seconds),
      times,
    )} | ${medianRange(
      sides.map((s) => s[peer].cpuSeconds / s.stratus.cpuSeconds),
      times,
    )} |`;
  const zarr = runs.flatMap((r) => r.zarrWrite ?? []);
  const ingestion = runs.flatMap((r) => r.ingestion ?? []);
  const write = `Zarr v2 write, ${Math.round(megabytes)} MB float32 (Stratus: ${PARALLEL_CHUNKS} chunks at once, flushed)`;
  const ingest = `ingestion, ${periods} daily COG windows (Stratus: ${READ_AHEAD} reads in flight, ${PARALLEL_CHUNKS} chunks at once, flushed)`;
  /** CPU milliseconds per unit of work of each side: the figure the CPU ratio divides. */
  const cpu = (label: string, unit: string, work: number, sides: RasterSides[]) =>
    `${label}, CPU ms per ${unit}: Stratus ${medianRange(
      sides.map((s) => (1000 * s.stratus.cpuSeconds) / work),
      rate,
    )}; peer like for like ${medianRange(
      sides.map((s) => (1000 * s.peer.cpuSeconds) / work),
      rate,
    )}; peer as usually run ${medianRange(
      sides.map((s) => (1000 * s.peerUsual.cpuSeconds) / work),
      rate,
    )}`;
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const rows = [
    ...(zarr.length === 0
      ? []
      : [
          row(
            write,
            'MB/s',
            megabytes,
            zarr,
            `zarr-python 2.13, ${PARALLEL_CHUNKS} threads, flushed (like for like)`,
            'peer',
          ),
          row(write, 'MB/s', megabytes, zarr, 'zarr-python 2.13, 1 thread, not flushed (as usually run)', 'peerUsual'),
        ]),
    ...(ingestion.length === 0
      ? []
      : [
          row(
            ingest,
            'periods/s',
            periods,
            ingestion,
            `GDAL /vsicurl/ + zarr-python, ${READ_AHEAD} reads in flight, ${PARALLEL_CHUNKS} writer threads, flushed (like for like)`,
            'peer',
          ),
          row(
            ingest,
            'periods/s',
            periods,
            ingestion,
            'GDAL /vsicurl/ + zarr-python, one period at a time, not flushed (as usually run)',
            'peerUsual',
          ),
        ]),
  ];
  return [
    `Raster writing, ${runs.length} runs: median (range); load average ${load} at the end`,
    '| measurement | Stratus | peer | ratio | ratio by CPU |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    ...(zarr.length === 0 ? [] : [cpu('Zarr write', 'MB', megabytes, zarr)]),
    ...(ingestion.length === 0 ? [] : [cpu('Ingestion', 'period', periods, ingestion)]),
  ];
}

/**
 * The rows of the table of current figures: the Zarr write and the ingestion against their like-for-like peers, by
 * wall time and (ingestion) by CPU, with the goals of issue 45; the peers as usually run, for information.
 */
export function rastersHeadlines({ megabytes, periods, runs }: RasterFigures): Headline[] {
  const zarr = runs.flatMap((r) => r.zarrWrite ?? []);
  const ingestion = runs.flatMap((r) => r.ingestion ?? []);
  const wall = (sides: RasterSides[], peer: 'peer' | 'peerUsual') =>
    sides.map((s) => s[peer].seconds / s.stratus.seconds);
  const command = 'node bench/rasters.ts';
  const write = `Zarr v2 write, ${Math.round(megabytes)} MB float32`;
  const ingest = `ingestion, ${periods} daily COG windows over HTTP`;
  const ingestPeer = `GDAL /vsicurl/ + zarr-python 2.13, ${READ_AHEAD} reads in flight, ${PARALLEL_CHUNKS} writer threads, flushed`;
  return [
    ...(zarr.length === 0
      ? []
      : [
          {
            figure: `${write}, wall time`,
            peer: `zarr-python 2.13, ${PARALLEL_CHUNKS} threads, flushed`,
            ratios: wall(zarr, 'peer'),
            goal: 1.2,
            command,
          },
          {
            figure: `${write}, wall time`,
            peer: 'zarr-python 2.13, 1 thread, not flushed (as usually run)',
            ratios: wall(zarr, 'peerUsual'),
            command,
          },
        ]),
    ...(ingestion.length === 0
      ? []
      : [
          { figure: `${ingest}, wall time`, peer: ingestPeer, ratios: wall(ingestion, 'peer'), goal: 1.5, command },
          {
            figure: `${ingest}, CPU per period`,
            peer: ingestPeer,
            ratios: ingestion.map((s) => s.peer.cpuSeconds / s.stratus.cpuSeconds),
            goal: 1,
            command,
          },
          {
            figure: `${ingest}, wall time`,
            peer: 'GDAL /vsicurl/ + zarr-python 2.13, one period at a time, not flushed (as usually run)',
            ratios: wall(ingestion, 'peerUsual'),
            command,
          },
        ]),
  ];
}

if (import.meta.main) {
  console.log(rastersReport(await benchRasters(Number(process.env.BENCH_DAYS ?? 366))).join('\n'));
  process.exit(0);
}
