/**
 * Zonal means read from a compressed Zarr store on disk, against xarray + zarr-python + numpy reading the same
 * store (`zonal-peer.py` given a `*.zarr` path, both pixel-centre methods, the faster kept; the peer's means are
 * checked against Stratus's): the store variant of `zonal-stats.ts`. Stratus runs in a child
 * process of its own (`node bench/zonal-store.ts <store> <polygons> <worker threads>`), so that its peak RSS is
 * the run's alone: once with a worker thread per core (`threads`, the default of `processing.worker_threads`),
 * and once with one worker thread, like for like with the single-threaded peer.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openStoredCube } from '../core/processing/collections/stored-cube.ts';
import { periodRange } from '../core/periods/index.ts';
import { directoryStore } from '../core/stores/directory-store.ts';
import { RasterCubeWriter } from '../core/stores/raster-cube.ts';
import { ZONAL_CHUNK } from '../core/processing/zonal/chunk-task.ts';
import { warmZonal } from '../core/processing/zonal/warm-up.ts';
import { configureProcessPool } from '../core/workers/pool.ts';
import { GRID, peerDifference, peerSeconds, polygons, runPeer, syntheticValues, zonalMeans } from './zonal-stats.ts';

const run = promisify(execFile);

export interface ZonalStoreFigures {
  steps: number;
  height: number;
  width: number;
  polygons: number;
  storeMegabytes: number;
  /** Worker threads of the best-effort run. */
  threads: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMegabytes: number;
  /** The same with one worker thread. */
  singleSeconds: number;
  singleCpuSeconds: number;
  singlePeakRssMegabytes: number;
  /** The faster of the peer's pixel-centre methods, and its figures. */
  peer: 'window' | 'labels';
  peerSeconds: number;
  peerCpuSeconds: number;
  peerPeakRssMegabytes: number;
  maxDifference: number;
}

/**
 * The high-water mark of this process's own memory (`VmHWM`): `maxRSS` keeps that of the parent it was forked from
 * (Linux carries it across exec), which the bench's parent holding the in-memory cube would inflate.
 */
async function peakRssMegabytes(): Promise<number> {
  const status = await readFile('/proc/self/status', 'utf8');
  return Number(/^VmHWM:\s+(\d+)/m.exec(status)![1]) / 1024;
}

/** The Stratus side, in this process: open the store lazily, aggregate with `threads` workers, and report. */
async function measure(store: string, polygonsPath: string, threads: number) {
  // Started and the zonal code compiled before the clock, as a listening server's are (`warmZonal`, as the
  // in-memory section runs it), like the peer's imports.
  await configureProcessPool(threads).warm(ZONAL_CHUNK);
  await warmZonal();
  const geometries = JSON.parse(await readFile(polygonsPath, 'utf8'));
  const start = performance.now();
  const cpu = process.cpuUsage();
  const { values } = await zonalMeans(await openStoredCube(directoryStore(store)), geometries, 'centre');
  const used = process.cpuUsage(cpu);
  return {
    seconds: (performance.now() - start) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    peakRssMegabytes: await peakRssMegabytes(),
    means: Array.from(values),
  };
}

export async function benchZonalFromStore(
  steps = 36,
  height = 1000,
  width = 1000,
  count = 150,
  threads = availableParallelism(),
): Promise<ZonalStoreFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-zonal-store-'));
  try {
    const store = join(root, 'cube.zarr');
    const values = syntheticValues(steps, height, width);
    const plane = height * width;
    const lon = Float64Array.from({ length: width }, (_, i) => GRID.west + (i + 0.5) * GRID.size);
    const lat = Float64Array.from({ length: height }, (_, j) => GRID.north - (j + 0.5) * GRID.size);
    const periods = periodRange('daily', '2024-01-01', new Date(Date.UTC(2024, 0, steps)).toISOString().slice(0, 10));
    const writer = await RasterCubeWriter.create(store, {
      variable: 'value',
      periodType: 'daily',
      periods,
      grid: { lon, lat, resolution: GRID.size },
      attributes: {},
    });
    for (let t = 0; t < steps; t++) await writer.append(values.subarray(t * plane, (t + 1) * plane));
    await writer.finish();
    const { stdout: du } = await run('du', ['-sk', store]);
    const polygonsPath = join(root, 'polygons.geojson');
    await writeFile(polygonsPath, JSON.stringify(polygons(count, height, width)));

    const stratusWith = async (workers: number) => {
      const { stdout } = await run(process.execPath, [import.meta.filename, store, polygonsPath, String(workers)], {
        maxBuffer: 256 * 1024 * 1024,
      });
      return JSON.parse(stdout) as Awaited<ReturnType<typeof measure>>;
    };
    const stratus = await stratusWith(threads);
    const single = await stratusWith(1);
    const size = [steps, height, width];
    const window = await runPeer('window', store, size, polygonsPath);
    const labels = await runPeer('labels', store, size, polygonsPath);
    const peer = peerSeconds(window) <= peerSeconds(labels) ? window : labels;
    const maxDifference = Math.max(
      peerDifference('window', window, stratus.means, steps),
      peerDifference('labels', labels, stratus.means, steps),
    );
    if (single.means.some((m, i) => !Object.is(m, stratus.means[i])))
      throw new Error('one worker thread and many gave different means');
    return {
      steps,
      height,
      width,
      polygons: count,
      storeMegabytes: Number(du.split('\t')[0]) / 1024,
      threads,
      seconds: stratus.seconds,
      cpuSeconds: stratus.cpuSeconds,
      peakRssMegabytes: stratus.peakRssMegabytes,
      singleSeconds: single.seconds,
      singleCpuSeconds: single.cpuSeconds,
      singlePeakRssMegabytes: single.peakRssMegabytes,
      peer: peer === window ? 'window' : 'labels',
      peerSeconds: peerSeconds(peer),
      peerCpuSeconds: peer.cpu_seconds,
      peerPeakRssMegabytes: peer.peak_rss_megabytes,
      maxDifference,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const [store, polygonsPath, threads] = process.argv.slice(2);
  // The store's handles must not keep the measuring process alive; exit once stdout (a pipe) has it all.
  process.stdout.write(JSON.stringify(await measure(store!, polygonsPath!, Number(threads))), () => process.exit(0));
}
