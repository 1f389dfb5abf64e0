/**
 * Analytics tables: the initial build of an org unit × month table over a daily store, against the numpy expert
 * (`analytics-peer.py`: zarr-python reading the same store a time chunk at a time, each polygon's window weights
 * built once, one vectorised weighted mean per polygon and chunk), and a one-day incremental update against the
 * full build of the day before (the update appends the store's last day, as a sync does). Both sides single-threaded; the coverage fractions of both are timed apart from the aggregation.
 * Stratus runs in a child process of its own so that its peak RSS is the build's alone.
 *
 * Run alone: `node bench/analytics-table.ts`. Knobs: BENCH_ANALYTICS_YEARS (10), BENCH_ANALYTICS_SIZE (cells a
 * side, 500), BENCH_ANALYTICS_UNITS (org units, 2000), BENCH_RUNS (3).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildAnalytics } from '../core/analytics/build.ts';
import { publishAnalyticsBuild } from '../core/analytics/publish.ts';
import { readOpenPeriods, type AnalyticsColumns } from '../core/analytics/table-file.ts';
import { DataCube } from '../core/processing/cube/cube.ts';
import type { Dimension } from '../core/processing/cube/dimension.ts';
import { openStoredCube } from '../core/processing/collections/stored-cube.ts';
import { gridOf } from '../core/processing/zonal/grid.ts';
import { zonalTable } from '../core/processing/zonal/table.ts';
import { periodRange } from '../core/periods/index.ts';
import { directoryStore } from '../core/stores/directory-store.ts';
import { RasterCubeWriter } from '../core/stores/raster-cube.ts';
import { configureProcessPool } from '../core/workers/pool.ts';
import { DEBIAN_PYTHON } from '../test/support/python.ts';
import type { Headline } from './headline.ts';

const run = promisify(execFile);
const PEER = join(import.meta.dirname, 'analytics-peer.py');
const WEST = 0;
const NORTH = 10;
const SIZE = 0.01;

/** Org units tiling the grid: quadrilaterals on a jittered lattice, so neighbours share their slanted edges. */
function orgUnits(count: number, size: number) {
  const columns = Math.round(Math.sqrt(count * 1.25));
  const rows = Math.ceil(count / columns);
  const jitter = (i: number, j: number, axis: number) => (((i * 7919 + j * 104729 + axis * 31) % 97) / 97 - 0.5) * 0.6;
  const point = (i: number, j: number) => {
    const inner = (k: number, n: number) => k > 0 && k < n;
    const x = (i + (inner(i, columns) ? jitter(i, j, 0) : 0)) * (size / columns);
    const y = (j + (inner(j, rows) ? jitter(i, j, 1) : 0)) * (size / rows);
    return [WEST + x * SIZE, NORTH - y * SIZE];
  };
  const features = [];
  for (let k = 0; k < count; k++) {
    const i = k % columns;
    const j = Math.floor(k / columns);
    const ring = [point(i, j), point(i + 1, j), point(i + 1, j + 1), point(i, j + 1), point(i, j)];
    features.push({
      type: 'Feature',
      id: `OU${k}`,
      properties: {},
      geometry: { type: 'Polygon', coordinates: [ring] },
    });
  }
  return { type: 'FeatureCollection', features };
}

async function writeStore(path: string, days: number, size: number): Promise<void> {
  const end = new Date(Date.UTC(2015, 0, days)).toISOString().slice(0, 10);
  const lon = Float64Array.from({ length: size }, (_, i) => WEST + (i + 0.5) * SIZE);
  const lat = Float64Array.from({ length: size }, (_, j) => NORTH - (j + 0.5) * SIZE);
  const writer = await RasterCubeWriter.create(path, {
    variable: 'value',
    periodType: 'daily',
    periods: periodRange('daily', '2015-01-01', end),
    grid: { lon, lat, resolution: SIZE },
    attributes: {},
  });
  const plane = new Float32Array(size * size);
  for (let t = 0; t < days; t++) {
    for (let i = 0; i < plane.length; i++)
      plane[i] = (i + t) % 101 === 0 ? NaN : ((i * 2654435761 + t * 40503) % 1000) / 10;
    await writer.append(plane);
  }
  await writer.finish();
}

/**
 * CPU seconds of this process since `start`: on a loaded machine the update, one thread most of its time, gets a
 * smaller share of the cores than the full build, whose decoding thread runs beside it; CPU time compares the work.
 */
function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1e6;
}

async function peakRssMegabytes(): Promise<number> {
  return Number(/^VmHWM:\s+(\d+)/m.exec(await readFile('/proc/self/status', 'utf8'))![1]) / 1024;
}

/** The store as it was the day before its last day: the table the update appends that day to. */
function withoutLastDay(cube: DataCube): DataCube {
  const [time, ...rest] = cube.dimensions;
  const earlier = { ...time!, labels: time!.labels.slice(0, -1) } as Dimension;
  return new DataCube({
    metadata: { ...cube.metadata, dimensions: [earlier, ...rest] },
    readChunk: (index, signal) => cube.source.readChunk(index, signal),
  });
}

/** The monthly means of a build's rows, by org unit and month. */
function meansOf(columns: AnalyticsColumns): Record<string, number> {
  const means: Record<string, number> = {};
  columns.stat.forEach((stat, i) => {
    if (stat === 'mean') means[`${columns.ou[i]}/${columns.pe[i]}`] = columns.value[i]!;
  });
  return means;
}

/**
 * The full build, published in `out/v1`. Only its figures outlive it: the update then runs without the full table's
 * rows in memory, as it does in a build process of its own.
 */
async function fullBuild(options: Parameters<typeof buildAnalytics>[0], out: string) {
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const full = await buildAnalytics(options);
  const dir = join(out, 'v1');
  const { rows } = await publishAnalyticsBuild(full, { staging: join(out, 'staging'), target: dir });
  const seconds = (performance.now() - start) / 1000;
  const cpuSeconds = cpuSecondsSince(cpuStart);
  return {
    seconds,
    cpuSeconds,
    dir,
    rows,
    cellsRead: full.cellsRead,
    lastDay: full.days!.end,
    means: meansOf(full.columns),
  };
}

/**
 * The Stratus side in this process: coverage, full build and table write, then a one-day update of that table,
 * each published as the worker publishes a version (in `out`).
 */
async function measure(store: string, polygonsPath: string, out: string) {
  await rm(out, { recursive: true, force: true });
  await configureProcessPool(1).warm();
  const features = JSON.parse(await readFile(polygonsPath, 'utf8')).features;
  const cube = await openStoredCube(directoryStore(store));
  const coverageStart = performance.now();
  const { entries } = zonalTable(features, 'EPSG:4326', gridOf(cube), 'coverage');
  const units = features.map((f: { id: string }, i: number) => ({ id: f.id, cells: entries[i] ?? null }));
  const coverageSeconds = (performance.now() - coverageStart) / 1000;
  const options = {
    cube,
    sourceVersion: 'v1',
    orgUnits: units,
    periodTypes: ['monthly'],
    statistics: ['mean', 'sum', 'min', 'max', 'count'],
  } as const;
  const full = await fullBuild({ ...options, cube: withoutLastDay(cube) }, out);
  const updateStart = performance.now();
  const updateCpuStart = process.cpuUsage();
  const update = await buildAnalytics({
    ...options,
    sourceVersion: 'v2',
    changed: (day) => day > full.lastDay,
    open: await readOpenPeriods(full.dir),
  });
  const next = await publishAnalyticsBuild(
    update,
    { staging: join(out, 'staging'), target: join(out, 'v2') },
    { dir: full.dir, rows: full.rows },
  );
  const updateSeconds = (performance.now() - updateStart) / 1000;
  const updateCpuSeconds = cpuSecondsSince(updateCpuStart);
  return {
    coverageSeconds,
    fullSeconds: full.seconds,
    updateSeconds,
    fullCpuSeconds: full.cpuSeconds,
    updateCpuSeconds,
    updateCellsRead: update.cellsRead,
    updateFilesWritten: next.written.length,
    updateFilesLinked: next.linked.length,
    fullCellsRead: full.cellsRead,
    peakRssMegabytes: await peakRssMegabytes(),
    means: {
      ...full.means,
      ...meansOf(update.columns),
    },
  };
}

export interface AnalyticsBuildFigures {
  days: number;
  size: number;
  units: number;
  /** Seconds; `fullCpu` and `updateCpu`: CPU seconds of the process (its decoding thread included). */
  runs: {
    coverage: number;
    full: number;
    update: number;
    fullCpu: number;
    updateCpu: number;
    peerMasks: number;
    peerAggregate: number;
  }[];
  /** What the update read and wrote: cells read from the source, files written anew and linked. */
  update: { cellsRead: number; filesWritten: number; filesLinked: number } | undefined;
  peakRssMegabytes: number;
  peerPeakRssMegabytes: number;
  maxDifference: number;
}

export async function benchAnalyticsBuild(
  years = Number(process.env.BENCH_ANALYTICS_YEARS ?? 10),
  size = Number(process.env.BENCH_ANALYTICS_SIZE ?? 500),
  count = Number(process.env.BENCH_ANALYTICS_UNITS ?? 2000),
  runs = Number(process.env.BENCH_RUNS ?? 3),
): Promise<AnalyticsBuildFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-analytics-'));
  try {
    const days = Math.round(years * 365.25);
    const store = join(root, 'cube.zarr');
    await writeStore(store, days, size);
    const polygonsPath = join(root, 'units.geojson');
    await writeFile(polygonsPath, JSON.stringify(orgUnits(count, size)));
    const figures: AnalyticsBuildFigures = {
      days,
      size,
      units: count,
      runs: [],
      update: undefined,
      peakRssMegabytes: 0,
      peerPeakRssMegabytes: 0,
      maxDifference: 0,
    };
    const env = { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', PYTHONWARNINGS: 'ignore' };
    for (let i = 0; i < runs; i++) {
      const { stdout } = await run(process.execPath, [import.meta.filename, store, polygonsPath, join(root, 'table')], {
        maxBuffer: 512 * 1024 * 1024,
      });
      const ours = JSON.parse(stdout) as Awaited<ReturnType<typeof measure>>;
      const peer = JSON.parse(
        (await run(DEBIAN_PYTHON, [PEER, store, polygonsPath], { env, maxBuffer: 512 * 1024 * 1024 })).stdout,
      ) as {
        mask_seconds: number;
        aggregate_seconds: number;
        peak_rss_megabytes: number;
        months: string[];
        means: number[][];
      };
      peer.means.forEach((perUnit, m) =>
        perUnit.forEach((value, k) => {
          const mine = ours.means[`OU${k}/${peer.months[m]!.replace('-', '')}`];
          figures.maxDifference = Math.max(figures.maxDifference, Math.abs((mine ?? NaN) - value));
        }),
      );
      figures.runs.push({
        coverage: ours.coverageSeconds,
        full: ours.fullSeconds,
        update: ours.updateSeconds,
        fullCpu: ours.fullCpuSeconds,
        updateCpu: ours.updateCpuSeconds,
        peerMasks: peer.mask_seconds,
        peerAggregate: peer.aggregate_seconds,
      });
      figures.update = {
        cellsRead: ours.updateCellsRead,
        filesWritten: ours.updateFilesWritten,
        filesLinked: ours.updateFilesLinked,
      };
      figures.peakRssMegabytes = Math.max(figures.peakRssMegabytes, ours.peakRssMegabytes);
      figures.peerPeakRssMegabytes = Math.max(figures.peerPeakRssMegabytes, peer.peak_rss_megabytes);
    }
    return figures;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export function analyticsBuildHeadlines(f: AnalyticsBuildFigures): Headline[] {
  const size = `${f.units} org units x ${f.days} days over ${f.size} x ${f.size}`;
  const command = 'node bench/analytics-table.ts';
  return [
    {
      figure: `analytics table build, monthly x 5 statistics, ${size} (aggregation, coverage apart)`,
      peer: 'numpy (Debian) + zarr-python, window weights, vectorised per polygon and time chunk, 1 thread',
      ratios: f.runs.map((r) => r.peerAggregate / r.full),
      command,
    },
    {
      figure: `coverage fractions of ${f.units} org units on the ${f.size} x ${f.size} grid`,
      peer: 'shapely (Debian) cell-by-cell intersection over each window',
      ratios: f.runs.map((r) => r.peerMasks / r.coverage),
      command,
    },
    {
      figure: `one-day incremental update against the full build, ${size}`,
      peer: 'the full build (Stratus)',
      ratios: f.runs.map((r) => r.full / r.update),
      goal: 100,
      command,
    },
    {
      figure: `one-day incremental update against the full build, CPU time (decoding thread included), ${size}`,
      peer: 'the full build (Stratus)',
      ratios: f.runs.map((r) => r.fullCpu / r.updateCpu),
      command,
    },
  ];
}

if (process.argv[2] && process.argv[3] && process.argv[4]) {
  // Exits once the whole answer is written: a pipe takes it in pieces.
  process.stdout.write(JSON.stringify(await measure(process.argv[2], process.argv[3], process.argv[4])), () =>
    process.exit(0),
  );
} else if (import.meta.main) {
  const figures = await benchAnalyticsBuild();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    JSON.stringify(
      { ...figures, headlines: analyticsBuildHeadlines(figures).map((h) => ({ ...h, median: median(h.ratios) })) },
      null,
      1,
    ),
  );
  process.exit(0);
}
