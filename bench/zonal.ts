/**
 * The zonal statistics sections of `make bench` (in memory, then from a compressed Zarr store), which
 * `node bench/zonal.ts` also runs alone; sizes and worker threads from `BENCH_ZONAL_STEPS`, `BENCH_ZONAL_SIZE`,
 * `BENCH_ZONAL_POLYGONS` and `BENCH_ZONAL_THREADS` (default: the cores), each section `BENCH_RUNS` times (each
 * figure and ratio the median of the runs, with their range). The peers are single-threaded; the rows with one
 * worker thread are the like-for-like ones.
 */
import { availableParallelism } from 'node:os';
import type { Headline } from './headline.ts';
import { benchRuns, medianRange, repeat, round, times } from './summary.ts';
import { benchZonalStats } from './zonal-stats.ts';
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

/** Prints both sections' tables and returns their like-for-like rows (one worker thread) for the table of figures. */
export async function zonalSections(): Promise<Headline[]> {
  /** Time steps, height, width, polygons and worker threads of both zonal sections. */
  const zonalSize = [
    Number(process.env.BENCH_ZONAL_STEPS ?? 36),
    Number(process.env.BENCH_ZONAL_SIZE ?? 1000),
    Number(process.env.BENCH_ZONAL_SIZE ?? 1000),
    Number(process.env.BENCH_ZONAL_POLYGONS ?? 150),
    Number(process.env.BENCH_ZONAL_THREADS ?? availableParallelism()),
  ] as const;
  const runs = benchRuns();
  const zonal = await repeat(runs, () => benchZonalStats(...zonalSize));
  const z = zonal[0]!;
  console.log(
    `\nZonal means, in memory: ${z.steps} × ${z.height} × ${z.width} float32 over ${z.polygons} polygons, ${runs} runs: median (range) (peak RSS up to ${round(Math.max(...zonal.map((r) => r.peakRssMegabytes)))} MB, largest difference from the peer ${Math.max(...zonal.map((r) => r.maxDifference)).toExponential(1)}); the peer is single-threaded`,
  );
  console.log(
    '| measurement | Stratus (s, CPU s) | peer: numpy masking per polygon and time step (s, CPU s) | ratio (wall, CPU) |',
  );
  console.log('| --- | --- | --- | --- |');
  const peer = (r: (typeof zonal)[number]) => ({ peerWall: r.peerSeconds, peerCpu: r.peerCpuSeconds });
  console.log(
    row(
      `pixel centre (aggregate_spatial, mean), ${z.threads} worker threads`,
      zonal.map((r) => ({ wall: r.centreSeconds, cpu: r.centreCpuSeconds, ...peer(r) })),
    ),
  );
  console.log(
    row(
      'pixel centre, 1 worker thread (like for like)',
      zonal.map((r) => ({ wall: r.singleCentreSeconds, cpu: r.singleCentreCpuSeconds, ...peer(r) })),
    ),
  );
  console.log(
    row(
      `coverage fractions (weighting "coverage") vs the peer's pixel centre, ${z.threads} worker threads`,
      zonal.map((r) => ({ wall: r.coverageSeconds, cpu: r.coverageCpuSeconds, ...peer(r) })),
    ),
  );

  const stored = await repeat(runs, () => benchZonalFromStore(...zonalSize));
  const s = stored[0]!;
  console.log(
    `\nZonal means from a compressed Zarr v2 store (${s.storeMegabytes.toFixed(0)} MB on disk), same cube and polygons, ${runs} runs: median (range) (largest difference from the peer ${Math.max(...stored.map((r) => r.maxDifference)).toExponential(1)}); the peer is single-threaded`,
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
  const size = `${z.steps} x ${z.height} x ${z.width}, ${z.polygons} polygons, 1 worker thread`;
  const command = 'node bench/zonal.ts';
  return [
    {
      figure: `zonal mean, pixel centre, in memory, ${size}`,
      peer: 'numpy (bench/zonal-peer.py), 1 thread',
      ratios: zonal.map((r) => r.peerSeconds / r.singleCentreSeconds),
      goal: 2,
      command,
    },
    {
      figure: `zonal mean, from a compressed Zarr v2 store, ${size}`,
      peer: 'xarray + zarr-python + numpy, 1 thread',
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
