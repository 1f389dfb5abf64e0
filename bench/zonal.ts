/**
 * The zonal statistics sections of `make bench` (in memory, then from a compressed Zarr store), which
 * `node bench/zonal.ts` also runs alone; sizes and worker threads from `BENCH_ZONAL_STEPS`, `BENCH_ZONAL_SIZE`,
 * `BENCH_ZONAL_POLYGONS` and `BENCH_ZONAL_THREADS` (default: the cores).
 */
import { availableParallelism } from 'node:os';
import { benchZonalStats } from './zonal-stats.ts';
import { benchZonalFromStore } from './zonal-store.ts';

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const round = (n: number) => Math.round(n).toLocaleString('en-US');

export async function zonalSections(): Promise<void> {
  /** Time steps, height, width, polygons and worker threads of both zonal sections. */
  const zonalSize = [
    Number(process.env.BENCH_ZONAL_STEPS ?? 36),
    Number(process.env.BENCH_ZONAL_SIZE ?? 1000),
    Number(process.env.BENCH_ZONAL_SIZE ?? 1000),
    Number(process.env.BENCH_ZONAL_POLYGONS ?? 150),
    Number(process.env.BENCH_ZONAL_THREADS ?? availableParallelism()),
  ] as const;
  const zonal = await benchZonalStats(...zonalSize);
  console.log(
    `\nZonal means, in memory: ${zonal.steps} × ${zonal.height} × ${zonal.width} float32 over ${zonal.polygons} polygons (peak RSS ${round(zonal.peakRssMegabytes)} MB, largest difference from the peer ${zonal.maxDifference.toExponential(1)}); the peer is single-threaded`,
  );
  console.log(
    '| measurement | Stratus (s, CPU s) | peer: numpy masking per polygon and time step (s, CPU s) | ratio (wall, CPU) |',
  );
  console.log('| --- | --- | --- | --- |');
  for (const [name, wall, cpu] of [
    [
      `pixel centre (aggregate_spatial, mean), ${zonal.threads} worker threads`,
      zonal.centreSeconds,
      zonal.centreCpuSeconds,
    ],
    ['pixel centre, 1 worker thread (like for like)', zonal.singleCentreSeconds, zonal.singleCentreCpuSeconds],
    [
      `coverage fractions (weighting "coverage") vs the peer's pixel centre, ${zonal.threads} worker threads`,
      zonal.coverageSeconds,
      zonal.coverageCpuSeconds,
    ],
  ] as const)
    console.log(
      `| ${name} | ${wall.toFixed(2)}, ${cpu.toFixed(2)} | ${zonal.peerSeconds.toFixed(2)}, ${zonal.peerCpuSeconds.toFixed(2)} | ${ratio(zonal.peerSeconds, wall)}, ${ratio(zonal.peerCpuSeconds, cpu)} |`,
    );

  const stored = await benchZonalFromStore(...zonalSize);
  console.log(
    `\nZonal means from a compressed Zarr v2 store (${stored.storeMegabytes.toFixed(0)} MB on disk), same cube and polygons (largest difference from the peer ${stored.maxDifference.toExponential(1)}); the peer is single-threaded`,
  );
  console.log('| measurement | Stratus | peer: xarray + zarr-python + numpy | ratio |');
  console.log('| --- | --- | --- | --- |');
  for (const [name, wall, cpu, rss] of [
    [`${stored.threads} worker threads`, stored.seconds, stored.cpuSeconds, stored.peakRssMegabytes],
    ['1 worker thread (like for like)', stored.singleSeconds, stored.singleCpuSeconds, stored.singlePeakRssMegabytes],
  ] as const) {
    console.log(
      `| read, decode, mask, reduce (s, CPU s), ${name} | ${wall.toFixed(2)}, ${cpu.toFixed(2)} | ${stored.peerSeconds.toFixed(2)}, ${stored.peerCpuSeconds.toFixed(2)} | ${ratio(stored.peerSeconds, wall)}, ${ratio(stored.peerCpuSeconds, cpu)} |`,
    );
    console.log(
      `| peak RSS of the process (MB), ${name} | ${round(rss)} | ${round(stored.peerPeakRssMegabytes)} | - |`,
    );
  }
}

if (import.meta.main) {
  await zonalSections();
  process.exit(0);
}
