/**
 * `make bench`: runs every benchmark section in turn, each printing its tables (every headline ratio the median of
 * several runs, `BENCH_RUNS` and the sections' own knobs), and writes the table of current figures at the top of
 * docs/performance.md from the Headline rows the sections return, with the machine's load around each section.
 * `BENCH_SECTIONS=store,tiles` runs some sections only and replaces their rows alone in that table.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { analyticsApiHeadlines, analyticsApiOptions, analyticsApiReport, benchAnalyticsApi } from './analytics-api.ts';
import { analyticsBuildHeadlines, benchAnalyticsBuild } from './analytics-table.ts';
import { apiBenchOptions, apiHeadlines, apiReport, benchApi } from './api.ts';
import { authTokenHeadlines, authTokenOptions, authTokenReport, benchAuthToken } from './auth-token.ts';
import {
  benchClimateIndices,
  CALENDAR_DAY_PERCENTILE_INDICES,
  CLIMATE_INDEX_PROCESSES,
  climateIndicesHeadlines,
} from './climate-indices.ts';
import { coverageUnionHeadlines, coverageUnionReport } from './coverage-union.ts';
import { benchFeatures, featuresHeadlines, featuresReport } from './features.ts';
import type { Headline } from './headline.ts';
import { writeHeadlineTable, type MeasuredHeadline } from './headline-table.ts';
import { benchRasters, rastersHeadlines, rastersReport } from './rasters.ts';
import { benchSplitIngestion, splitIngestionHeadlines, splitIngestionReport } from './split-ingestion.ts';
import { benchStore, storeHeadlines, storeReport } from './store.ts';
import { benchPyramids, pyramidOptions, pyramidsHeadlines, pyramidsReport } from './pyramids.ts';
import { benchRuns, repeat } from './summary.ts';
import { benchTiles, tilesHeadlines, tilesOptions, tilesReport } from './tiles.ts';
import { benchZarrServing, zarrServingHeadlines, zarrServingOptions, zarrServingReport } from './zarr-serving.ts';
import { zonalSections } from './zonal.ts';
import { benchZarrReaders, zarrReadersHeadlines, zarrReadersOptions, zarrReadersReport } from './zarr-readers.ts';

const env = process.env;
const days = Number(env.BENCH_DAYS ?? 366);

/** Prints a section's tables and returns its rows. */
const printed = (report: string[], rows: Headline[]) => {
  console.log(`\n${report.join('\n')}`);
  return rows;
};

/**
 * Every section of `make bench`, in the order run: each runs its benchmark, prints its tables and returns its rows
 * of the table of current figures. A new benchmark adds its section here.
 */
const sections: { name: string; run: () => Promise<Headline[]> }[] = [
  {
    name: 'store',
    run: async () => {
      const count = Number(env.BENCH_STORE_COUNT ?? 10_000);
      const writers = Number(env.BENCH_STORE_WRITERS ?? 16);
      const runs = await repeat(benchRuns(), () => benchStore(count, writers));
      return printed(storeReport(runs), storeHeadlines(runs));
    },
  },
  {
    name: 'API',
    run: async () => {
      const options = apiBenchOptions(env);
      const figures = await benchApi(options);
      return printed(apiReport(figures, options), apiHeadlines(figures, options));
    },
  },
  {
    name: '/zarr',
    run: async () => {
      const options = zarrServingOptions(env);
      const figures = await benchZarrServing(options);
      return printed(zarrServingReport(figures, options), zarrServingHeadlines(figures, options));
    },
  },
  {
    name: '/zarr read by xarray',
    run: async () => {
      const options = zarrReadersOptions(env);
      const figures = await benchZarrReaders(options);
      return printed(zarrReadersReport(figures, options), zarrReadersHeadlines(figures));
    },
  },
  {
    name: 'rasters',
    run: async () => {
      const figures = await benchRasters(days);
      return printed(rastersReport(figures), rastersHeadlines(figures));
    },
  },
  {
    name: 'split ingestion',
    run: async () => {
      const figures = await benchSplitIngestion(days);
      return printed(splitIngestionReport(figures), splitIngestionHeadlines(figures));
    },
  },
  {
    name: 'features',
    run: async () => {
      const figures = await benchFeatures(Number(env.BENCH_FEATURES ?? 50_000));
      return printed(featuresReport(figures), featuresHeadlines(figures));
    },
  },
  { name: 'zonal', run: zonalSections },
  {
    name: 'tiles',
    run: async () => {
      const figures = await benchTiles(...tilesOptions(env));
      return printed(tilesReport(figures), tilesHeadlines(figures));
    },
  },
  {
    name: 'tiles over multiscale levels',
    run: async () => {
      const figures = await benchPyramids(pyramidOptions(env));
      return printed(pyramidsReport(figures), pyramidsHeadlines(figures));
    },
  },
  {
    name: 'token',
    run: async () => {
      const figures = await benchAuthToken(authTokenOptions(env));
      return printed(authTokenReport(figures), authTokenHeadlines(figures));
    },
  },
  {
    name: 'coverage union',
    run: async () => {
      const { figures, headlines } = await coverageUnionHeadlines();
      return printed(coverageUnionReport(figures.at(-1)!), headlines);
    },
  },
  {
    name: 'analytics table build',
    run: async () => {
      const figures = await benchAnalyticsBuild();
      const rows = analyticsBuildHeadlines(figures);
      return printed([JSON.stringify(figures, null, 1)], rows);
    },
  },
  {
    name: 'analytics API',
    run: async () => {
      const options = analyticsApiOptions();
      const figures = await benchAnalyticsApi(options);
      return printed(
        analyticsApiReport(figures, options.connections),
        analyticsApiHeadlines(figures, options.connections),
      );
    },
  },
  {
    // 100 x 100 cells a side unless BENCH_INDICES_SIZE; the calendar-day percentile indices (their bootstrap) and
    // SPI-3 (its SciPy peer fits each cell and month in turn) 20 x 20 unless BENCH_INDICES_PERCENTILE_SIZE.
    name: 'climate indices',
    run: async () => {
      const others = await benchClimateIndices(
        20,
        Number(env.BENCH_INDICES_SIZE ?? 100),
        Number(env.BENCH_RUNS ?? 3),
        CLIMATE_INDEX_PROCESSES.filter((p) => !CALENDAR_DAY_PERCENTILE_INDICES.includes(p)),
      );
      const percentile = await benchClimateIndices(
        20,
        Number(env.BENCH_INDICES_PERCENTILE_SIZE ?? 20),
        Number(env.BENCH_RUNS ?? 3),
        [...CALENDAR_DAY_PERCENTILE_INDICES, 'spi'],
      );
      return printed([], [...climateIndicesHeadlines(others), ...climateIndicesHeadlines(percentile)]);
    },
  },
];

const names = sections.map((section) => section.name);
const chosen = env.BENCH_SECTIONS?.split(',').map((name) => name.trim().toLowerCase());
const unknown = chosen?.filter((name) => !names.some((known) => known.toLowerCase() === name)) ?? [];
if (unknown.length > 0) {
  console.error(`BENCH_SECTIONS names no section: ${unknown.join(', ')}. The sections: ${names.join(', ')}.`);
  process.exit(2);
}

const rows: MeasuredHeadline[] = [];
for (const section of sections.filter(({ name }) => !chosen || chosen.includes(name.toLowerCase()))) {
  console.log(`\n## ${section.name}`);
  const load = loadavg()[0]!;
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const measured = await section.run();
  const end = loadavg()[0]!;
  rows.push(...measured.map((row) => ({ ...row, section: section.name, load: [load, end] as [number, number], date })));
}
const page = join(import.meta.dirname, '../docs/performance.md');
await writeHeadlineTable(page, rows, names);
console.log(`\nThe table of current figures is written at the top of ${page}.`);

// The Icechunk/wasm pitfall of DESIGN.md §4 aside, open handles must not keep a benchmark alive.
process.exit(0);
