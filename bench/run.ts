/**
 * `make bench`: runs every benchmark and prints the figures with their ratio to the peer, each headline ratio the
 * median of several runs (`BENCH_RUNS`, and `BENCH_API_RUNS` / `BENCH_AUTH_RUNS` for those benches) with its range.
 */
import { apiBenchOptions, apiReport, benchApi } from './api.ts';
import { authTokenOptions, authTokenReport, benchAuthToken } from './auth-token.ts';
import { benchFeatures, featuresReport } from './features.ts';
import { benchRasters, rastersReport } from './rasters.ts';
import { benchSplitIngestion, splitIngestionReport } from './split-ingestion.ts';
import { benchTiles } from './tiles.ts';
import { benchStore, storeReport } from './store.ts';
import { benchRuns, repeat } from './summary.ts';
import { benchZarrServing, zarrServingOptions, zarrServingReport } from './zarr-serving.ts';
import { zonalSections } from './zonal.ts';

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

const storeCount = Number(process.env.BENCH_STORE_COUNT ?? 10_000);
const storeWriters = Number(process.env.BENCH_STORE_WRITERS ?? 16);
console.log(`\n${storeReport(await repeat(benchRuns(), () => benchStore(storeCount, storeWriters))).join('\n')}`);

const apiOptions = apiBenchOptions(process.env);
console.log(`\n${apiReport(await benchApi(apiOptions), apiOptions).join('\n')}`);
const servingOptions = zarrServingOptions(process.env);
console.log(`\n${zarrServingReport(await benchZarrServing(servingOptions), servingOptions).join('\n')}`);

const days = Number(process.env.BENCH_DAYS ?? 366);
console.log(`\n${rastersReport(await benchRasters(days)).join('\n')}`);
console.log(`\n${splitIngestionReport(await benchSplitIngestion(days)).join('\n')}`);
const features = await benchFeatures(Number(process.env.BENCH_FEATURES ?? 50_000));
console.log(`\n${featuresReport(features).join('\n')}`);

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
