/**
 * The zonal statistics sections of `make bench` (in memory, then from a compressed Zarr store), which
 * `node bench/zonal.ts` also runs alone; sizes and worker threads from `BENCH_ZONAL_STEPS`, `BENCH_ZONAL_SIZE`,
 * `BENCH_ZONAL_POLYGONS` and `BENCH_ZONAL_THREADS` (default: the cores), each section `BENCH_RUNS` times (each
 * figure and ratio the median of the runs, with their range). The peers are single-threaded; the rows with one
 * worker thread are the like-for-like ones, and the headline rows.
 */
import { availableParallelism } from 'node:os';
import type { Headline } from './headline.ts';
import { benchRuns, median, medianRange, repeat, round, times } from './summary.ts';
import { benchZonalStats, type Timing } from './zonal-stats.ts';
import { benchZonalFromStore } from './zonal-store.ts';

const seconds = (n: number) => n.toFixed(2);

/** One row: Stratus's and the peer's wall and CPU seconds, and both ratios (peer over Stratus), over the runs. */
function row(name: string, sides: { wall: number; cpu: number; peerWall: number; peerCpu: number }[]): string {
  const pick = (f: (s: (typeof sides)[number]) => number, format: (n: number) => string) =>
    medianRange(sides.map(f), format);
  return `| ${name} | ${pick((s) => s.wall, seconds)}, ${pick((s) => s.cpu, seconds)} | ${pick((s) => s.peerWall, seconds)}, ${pick(
    (s) => s.peerCpu,
    seconds,
  )} | ${pick((s) => s.peerWall / s.wall, times)}, ${pick((s) => s.peerCpu / s.cpu, times)} |`;
}

/** The peers' configuration, as the rows of the table of figures name it. */
const NUMPY = "Debian's numpy 1.24 (bench/zonal-peer.py), 1 thread";
const CENTRE_PEERS = `${NUMPY}, the faster of window masks (one nanmean over all steps a polygon) and a label grid (bincount a step)`;

/** Prints both sections' tables and returns their like-for-like rows (one worker thread) for the table of figures. */
export async function zonalSections(): Promise<Headline[]> {
  /** Time steps, height, width, polygons and worker threads of both zonal sections. */
  const zonalSize = [
    Number(process.env.BENCH_ZONAL_STEPS ?? 365),
    Number(process.env.BENCH_ZONAL_SIZE ?? 1000),
    Number(process.env.BENCH_ZONAL_SIZE ?? 1000),
    Number(process.env.BENCH_ZONAL_POLYGONS ?? 150),
    Number(process.env.BENCH_ZONAL_THREADS ?? availableParallelism()),
  ] as const;
  const runs = benchRuns();
  const zonal = await repeat(runs, () => benchZonalStats(...zonalSize));
  const z = zonal[0]!;
  const faster = (r: (typeof zonal)[number]) => r[r.fasterPeer];
  console.log(
    `\nZonal means, in memory: ${z.steps} × ${z.height} × ${z.width} float32 over ${z.polygons} polygons, ${runs} runs: median (range) (peak RSS up to ${round(Math.max(...zonal.map((r) => r.peakRssMegabytes)))} MB; largest difference from the pixel-centre peers ${Math.max(...zonal.map((r) => r.maxDifference)).toExponential(1)}, from the coverage peer ${Math.max(...zonal.map((r) => r.coverageDifference)).toExponential(1)}); the peers are single-threaded, the faster pixel-centre peer by run: ${zonal.map((r) => r.fasterPeer).join(', ')}`,
  );
  console.log('| measurement | Stratus (s, CPU s) | peer (s, CPU s) | ratio (wall, CPU) |');
  console.log('| --- | --- | --- | --- |');
  const against = (
    name: string,
    mine: (r: (typeof zonal)[number]) => Timing,
    peer: (r: (typeof zonal)[number]) => Timing,
  ) =>
    console.log(
      row(
        name,
        zonal.map((r) => ({
          wall: mine(r).seconds,
          cpu: mine(r).cpuSeconds,
          peerWall: peer(r).seconds,
          peerCpu: peer(r).cpuSeconds,
        })),
      ),
    );
  against(
    'pixel centre, 1 worker thread, against window masks',
    (r) => r.singleCentre,
    (r) => r.window,
  );
  against(
    'pixel centre, 1 worker thread, against a label grid',
    (r) => r.singleCentre,
    (r) => r.labels,
  );
  against('pixel centre, 1 worker thread, against the faster (the headline)', (r) => r.singleCentre, faster);
  const warmFaster = (r: (typeof zonal)[number]) =>
    r.warmWindow.seconds <= r.warmLabels.seconds ? r.warmWindow : r.warmLabels;
  against(
    "pixel centre, 1 worker thread, warm (a third call on it), against the faster peer's second pass",
    (r) => r.warmCentre,
    warmFaster,
  );
  against(`pixel centre, ${z.threads} worker threads, against the faster`, (r) => r.centre, faster);
  against('coverage fractions, 1 worker thread, against the faster pixel-centre peer', (r) => r.singleCoverage, faster);
  against(
    'coverage fractions, 1 worker thread, against window coverage',
    (r) => r.singleCoverage,
    (r) => r.peerCoverage,
  );
  against(
    `coverage fractions, ${z.threads} worker threads, against the faster pixel-centre peer`,
    (r) => r.coverage,
    faster,
  );

  const stored = await repeat(runs, () => benchZonalFromStore(...zonalSize));
  const s = stored[0]!;
  console.log(
    `\nZonal means from a compressed Zarr v2 store (${s.storeMegabytes.toFixed(0)} MB on disk), same cube and polygons, ${runs} runs: median (range) (largest difference from the peer ${Math.max(...stored.map((r) => r.maxDifference)).toExponential(1)}); the peer is single-threaded, the faster pixel-centre method by run: ${stored.map((r) => r.peer).join(', ')}`,
  );
  console.log('| measurement | Stratus | peer: xarray + zarr-python + numpy | ratio |');
  console.log('| --- | --- | --- | --- |');
  const storePeer = (r: (typeof stored)[number]) => ({ peerWall: r.peerSeconds, peerCpu: r.peerCpuSeconds });
  for (const [name, pick] of [
    [`${s.threads} worker threads`, (r) => [r.seconds, r.cpuSeconds, r.peakRssMegabytes]],
    ['1 worker thread (like for like)', (r) => [r.singleSeconds, r.singleCpuSeconds, r.singlePeakRssMegabytes]],
  ] as const satisfies readonly (readonly [string, (r: (typeof stored)[number]) => number[]])[]) {
    console.log(
      row(
        `read, decode, mask, reduce (s, CPU s), ${name}`,
        stored.map((r) => ({ wall: pick(r)[0]!, cpu: pick(r)[1]!, ...storePeer(r) })),
      ),
    );
    console.log(
      `| peak RSS of the process (MB), ${name} | ${medianRange(
        stored.map((r) => pick(r)[2]!),
        round,
      )} | ${medianRange(
        stored.map((r) => r.peerPeakRssMegabytes),
        round,
      )} | - |`,
    );
  }
  const size = `${z.steps} x ${z.height} x ${z.width} float32, ${z.polygons} polygons, 1 worker thread`;
  const command = 'node bench/zonal.ts';
  const peakRss = median(stored.map((r) => r.singlePeakRssMegabytes));
  return [
    {
      figure: `zonal mean, pixel centre, in memory, ${size}`,
      peer: CENTRE_PEERS,
      ratios: zonal.map((r) => faster(r).seconds / r.singleCentre.seconds),
      goal: 2,
      command,
    },
    {
      figure: `zonal mean, pixel centre, in memory, ${size}, warm (a server's later requests: a third call on the worker)`,
      peer: `${CENTRE_PEERS}, its second pass in its process`,
      ratios: zonal.map((r) => warmFaster(r).seconds / r.warmCentre.seconds),
      command,
    },
    {
      figure: `zonal mean, coverage fractions, in memory, ${size}`,
      peer: `${CENTRE_PEERS}, by pixel centre`,
      ratios: zonal.map((r) => faster(r).seconds / r.singleCoverage.seconds),
      goal: 1,
      command,
    },
    {
      figure: `zonal mean, coverage fractions, in memory, ${size}`,
      peer: `${NUMPY}, window masks weighted by shapely 1.8's cell fractions`,
      ratios: zonal.map((r) => r.peerCoverage.seconds / r.singleCoverage.seconds),
      command,
    },
    {
      figure: `zonal mean, pixel centre, from a compressed Zarr v2 store, ${size}, peak RSS ${round(peakRss)} MB (goal under 1,024 MB: ${peakRss < 1024 ? 'met' : '**not met**'})`,
      peer: `xarray + zarr-python 2.13 reading the store, then ${CENTRE_PEERS}`,
      ratios: stored.map((r) => r.peerSeconds / r.singleSeconds),
      goal: 2,
      command,
    },
  ];
}

if (import.meta.main) {
  await zonalSections();
  process.exit(0);
}
