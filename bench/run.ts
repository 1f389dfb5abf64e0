/** `make bench`: runs every benchmark once and prints the figures with their ratio to the peer. */
import { apiBenchOptions, apiReport, benchApi } from './api.ts';
import { authTokenOptions, authTokenReport, benchAuthToken } from './auth-token.ts';
import { benchFeatures } from './features.ts';
import { benchRasters } from './rasters.ts';
import { benchSplitIngestion } from './split-ingestion.ts';
import { benchStore } from './store.ts';
import { benchZarrServing } from './zarr-serving.ts';
import { benchZonalStats } from './zonal-stats.ts';
import { benchZonalFromStore } from './zonal-store.ts';

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const round = (n: number) => Math.round(n).toLocaleString('en-US');

const store = await benchStore(
  Number(process.env.BENCH_STORE_COUNT ?? 10_000),
  Number(process.env.BENCH_STORE_WRITERS ?? 16),
);
console.log(`\nEmbedded store, ${store.count.toLocaleString('en-US')} resources`);
console.log('| operation | Stratus (ops/s) | peer: temp+fsync+rename (ops/s) | ratio |');
console.log('| --- | --- | --- | --- |');
console.log(
  `| create | ${round(store.createPerSecond)} | ${round(store.peerAtomicWritesPerSecond)} | ${ratio(store.createPerSecond, store.peerAtomicWritesPerSecond)} |`,
);
console.log(
  `| update (merge patch) | ${round(store.updatePerSecond)} | ${round(store.peerAtomicWritesPerSecond)} | ${ratio(store.updatePerSecond, store.peerAtomicWritesPerSecond)} |`,
);
console.log(
  `| create, ${store.writers} concurrent writers (peer: as many) | ${round(store.concurrentCreatePerSecond)} | ${round(store.peerConcurrentWritesPerSecond)} | ${ratio(store.concurrentCreatePerSecond, store.peerConcurrentWritesPerSecond)} |`,
);
console.log(`| watch replay (events/s) | ${round(store.watchEventsPerSecond)} | - | - |`);

const apiOptions = apiBenchOptions(process.env);
console.log(`\n${apiReport(await benchApi(apiOptions), apiOptions).join('\n')}`);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const serving = await benchZarrServing(seconds);
console.log('\n/zarr chunk GETs (wrk, 2 threads, 32 connections, keys in turn)');
console.log('| chunk | Stratus (req/s) | peer: nginx (req/s) | ratio |');
console.log('| --- | --- | --- | --- |');
for (const f of serving)
  console.log(`| ${f.chunk} | ${round(f.stratus)} | ${round(f.nginx)} | ${ratio(f.stratus, f.nginx)} |`);

const rasters = await benchRasters(Number(process.env.BENCH_DAYS ?? 366));
console.log('\nRaster writing');
console.log('| measurement | Stratus | peer | ratio |');
console.log('| --- | --- | --- | --- |');
const { zarrWrite: z, ingestion: i } = rasters;
console.log(
  `| Zarr v2 write, ${round(z.megabytes)} MB float32 | ${z.stratusMBps.toFixed(1)} MB/s | zarr-python 2.13: ${z.peerMBps.toFixed(1)} MB/s | ${ratio(z.stratusMBps, z.peerMBps)} |`,
);
console.log(
  `| ingestion, ${i.periods} daily COG windows | ${i.stratusPerSecond.toFixed(1)} periods/s | GDAL /vsicurl/ + zarr-python: ${i.peerPerSecond.toFixed(1)} periods/s | ${ratio(i.stratusPerSecond, i.peerPerSecond)} |`,
);

const split = await benchSplitIngestion(Number(process.env.BENCH_DAYS ?? 366));
console.log(`\nSplit ingestion (${split.roundTripMs} ms per upstream request, embedded worker processes)`);
console.log('| measurement | Stratus, split | peer: Stratus in one worker | ratio |');
console.log('| --- | --- | --- | --- |');
console.log(
  `| ${split.periods} daily COG windows in ${split.parts} parts | ${split.splitPerSecond.toFixed(1)} periods/s | ${split.wholePerSecond.toFixed(1)} periods/s | ${ratio(split.splitPerSecond, split.wholePerSecond)} |`,
);

const features = await benchFeatures(Number(process.env.BENCH_FEATURES ?? 50_000));
console.log(`\nFeature collections, ${round(features.count)} polygons of 32 vertices`);
console.log('| measurement | Stratus (features/s) | peer: GDAL 3.6 (features/s) | ratio |');
console.log('| --- | --- | --- | --- |');
console.log(
  `| write: GeoJSON -> GeoParquet (${features.parquetMegabytes.toFixed(1)} MB) / ogr2ogr -> FlatGeobuf (${features.peerMegabytes.toFixed(1)} MB) | ${round(features.write.stratusPerSecond)} | ${round(features.write.peerPerSecond)} | ${ratio(features.write.stratusPerSecond, features.write.peerPerSecond)} |`,
);
console.log(
  `| read every feature (GeoParquet with hyparquet / FlatGeobuf with OGR) | ${round(features.read.stratusPerSecond)} | ${round(features.read.peerPerSecond)} | ${ratio(features.read.stratusPerSecond, features.read.peerPerSecond)} |`,
);

/** Time steps, height, width and polygons of both zonal sections. */
const zonalSize = [
  Number(process.env.BENCH_ZONAL_STEPS ?? 36),
  Number(process.env.BENCH_ZONAL_SIZE ?? 1000),
  Number(process.env.BENCH_ZONAL_SIZE ?? 1000),
  Number(process.env.BENCH_ZONAL_POLYGONS ?? 150),
] as const;
const zonal = await benchZonalStats(...zonalSize);
console.log(
  `\nZonal means, in memory: ${zonal.steps} × ${zonal.height} × ${zonal.width} float32 over ${zonal.polygons} polygons (peak RSS ${round(zonal.peakRssMegabytes)} MB, largest difference from the peer ${zonal.maxDifference.toExponential(1)})`,
);
console.log(
  '| measurement | Stratus (s, CPU s) | peer: numpy masking per polygon and time step (s, CPU s) | ratio (wall, CPU) |',
);
console.log('| --- | --- | --- | --- |');
for (const [name, wall, cpu] of [
  ['pixel centre (aggregate_spatial, mean)', zonal.centreSeconds, zonal.centreCpuSeconds],
  [
    'coverage fractions (weighting "coverage") vs the peer\'s pixel centre',
    zonal.coverageSeconds,
    zonal.coverageCpuSeconds,
  ],
] as const)
  console.log(
    `| ${name} | ${wall.toFixed(2)}, ${cpu.toFixed(2)} | ${zonal.peerSeconds.toFixed(2)}, ${zonal.peerCpuSeconds.toFixed(2)} | ${ratio(zonal.peerSeconds, wall)}, ${ratio(zonal.peerCpuSeconds, cpu)} |`,
  );

const stored = await benchZonalFromStore(...zonalSize);
console.log(
  `\nZonal means from a compressed Zarr v2 store (${stored.storeMegabytes.toFixed(0)} MB on disk), same cube and polygons (largest difference from the peer ${stored.maxDifference.toExponential(1)})`,
);
console.log('| measurement | Stratus | peer: xarray + zarr-python + numpy | ratio |');
console.log('| --- | --- | --- | --- |');
console.log(
  `| read, decode, mask, reduce (s, CPU s) | ${stored.seconds.toFixed(2)}, ${stored.cpuSeconds.toFixed(2)} | ${stored.peerSeconds.toFixed(2)}, ${stored.peerCpuSeconds.toFixed(2)} | ${ratio(stored.peerSeconds, stored.seconds)}, ${ratio(stored.peerCpuSeconds, stored.cpuSeconds)} |`,
);
console.log(
  `| peak RSS of the process (MB) | ${round(stored.peakRssMegabytes)} | ${round(stored.peerPeakRssMegabytes)} | - |`,
);

const auth = await benchAuthToken(authTokenOptions(process.env));
console.log(`\n${authTokenReport(auth).join('\n')}`);

// The Icechunk/wasm pitfall of DESIGN.md §4 aside, open handles must not keep a benchmark alive.
process.exit(0);
