/** `make bench`: runs every benchmark once and prints the figures with their ratio to the peer. */
import { apiBenchOptions, apiReport, benchApi } from './api.ts';
import { authTokenOptions, authTokenReport, benchAuthToken } from './auth-token.ts';
import { benchFeatures } from './features.ts';
import { benchRasters } from './rasters.ts';
import { benchSplitIngestion } from './split-ingestion.ts';
import { benchTiles } from './tiles.ts';
import { benchStore } from './store.ts';
import { benchZarrServing, zarrServingOptions, zarrServingReport } from './zarr-serving.ts';
import { zonalSections } from './zonal.ts';

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
const servingOptions = zarrServingOptions(process.env);
console.log(`\n${zarrServingReport(await benchZarrServing(servingOptions), servingOptions).join('\n')}`);

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

await zonalSections();

const tiles = await benchTiles(
  Number(process.env.BENCH_TILE_PERIODS ?? 8),
  Number(process.env.BENCH_TILES_PER_ZOOM ?? 16),
);
console.log(
  `\nMap tiles, ${tiles.tiles} tiles of zooms ${tiles.zooms.join(' to ')} over a 2000 x 1500 daily grid, one request at a time (ms per tile)`,
);
console.log('| Stratus | p50 | p95 | peer: GDAL 3.6 | p50 | p95 | ratio p50, p95 |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const [name, ours, peerName, peer] of [
  ['first view', tiles.firstView, 'gdalwarp + gdaldem per tile', tiles.cli],
  ['first view', tiles.firstView, 'library, store opened per tile', tiles.library],
  ['second view', tiles.secondView, 'library, datasets kept open', tiles.keptOpen],
] as const)
  console.log(
    `| ${name} | ${ours.p50.toFixed(1)} | ${ours.p95.toFixed(1)} | ${peerName} | ${peer.p50.toFixed(1)} | ${peer.p95.toFixed(1)} | ${ratio(peer.p50, ours.p50)}, ${ratio(peer.p95, ours.p95)} |`,
  );

const auth = await benchAuthToken(authTokenOptions(process.env));
console.log(`\n${authTokenReport(auth).join('\n')}`);

// The Icechunk/wasm pitfall of DESIGN.md §4 aside, open handles must not keep a benchmark alive.
process.exit(0);
