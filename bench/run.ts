/**
 * `make bench`: runs every benchmark section in turn, each printing its tables (every headline ratio the median of
 * several runs, `BENCH_RUNS` and the sections' own knobs), and writes the table of current figures at the top of
 * docs/performance.md from the Headline rows the sections return, with the machine's load around each section.
 * `BENCH_SECTIONS=store,tiles` runs some sections only and replaces their rows alone in that table.
 *
 * Each section runs in a process of its own that loads its own modules only (this file, forked with
 * `BENCH_SECTION_CHILD`, sending its rows back): in one process the later sections ran beside every earlier one's
 * heap, which a section allocating much (the Zarr write: 2 MB chunks) paid in garbage collection, so its figures
 * differed from those of its own command.
 */
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Headline } from './headline.ts';
import { writeHeadlineTable, type MeasuredHeadline } from './headline-table.ts';

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
      const { benchStore, storeHeadlines, storeReport } = await import('./store.ts');
      const { benchRuns, repeat } = await import('./summary.ts');
      const count = Number(env.BENCH_STORE_COUNT ?? 10_000);
      const writers = Number(env.BENCH_STORE_WRITERS ?? 16);
      const runs = await repeat(benchRuns(), () => benchStore(count, writers));
      return printed(storeReport(runs), storeHeadlines(runs));
    },
  },
  {
    name: 'API',
    run: async () => {
      const { apiBenchOptions, apiHeadlines, apiReport, benchApi } = await import('./api.ts');
      const options = apiBenchOptions(env);
      const figures = await benchApi(options);
      return printed(apiReport(figures, options), apiHeadlines(figures, options));
    },
  },
  {
    name: '/zarr',
    run: async () => {
      const { benchZarrServing, zarrServingHeadlines, zarrServingOptions, zarrServingReport } =
        await import('./zarr-serving.ts');
      const options = zarrServingOptions(env);
      const figures = await benchZarrServing(options);
      return printed(zarrServingReport(figures, options), zarrServingHeadlines(figures, options));
    },
  },
  {
    name: '/zarr read by xarray',
    run: async () => {
      const { benchZarrReaders, zarrReadersHeadlines, zarrReadersOptions, zarrReadersReport } =
        await import('./zarr-readers.ts');
      const options = zarrReadersOptions(env);
      const figures = await benchZarrReaders(options);
      return printed(zarrReadersReport(figures, options), zarrReadersHeadlines(figures));
    },
  },
  {
    name: 'rasters',
    run: async () => {
      const { benchRasters, rastersHeadlines, rastersReport } = await import('./rasters.ts');
      const figures = await benchRasters(days);
      return printed(rastersReport(figures), rastersHeadlines(figures));
    },
  },
  {
    name: 'split ingestion',
    run: async () => {
      const { benchSplitIngestion, splitIngestionHeadlines, splitIngestionReport } =
        await import('./split-ingestion.ts');
      const figures = await benchSplitIngestion(days);
      return printed(splitIngestionReport(figures), splitIngestionHeadlines(figures));
    },
  },
  {
    name: 'features',
    run: async () => {
      const { benchFeatures, featuresHeadlines, featuresReport } = await import('./features.ts');
      const figures = await benchFeatures(Number(env.BENCH_FEATURES ?? 50_000));
      return printed(featuresReport(figures), featuresHeadlines(figures));
    },
  },
  { name: 'zonal', run: async () => (await import('./zonal.ts')).zonalSections() },
  {
    name: 'tiles',
    run: async () => {
      const { benchTiles, tilesHeadlines, tilesOptions, tilesReport } = await import('./tiles.ts');
      const figures = await benchTiles(...tilesOptions(env));
      return printed(tilesReport(figures), tilesHeadlines(figures));
    },
  },
  {
    name: 'tiles over multiscale levels',
    run: async () => {
      const { benchPyramids, pyramidOptions, pyramidsHeadlines, pyramidsReport } = await import('./pyramids.ts');
      const figures = await benchPyramids(pyramidOptions(env));
      return printed(pyramidsReport(figures), pyramidsHeadlines(figures));
    },
  },
  {
    name: 'token',
    run: async () => {
      const { authTokenHeadlines, authTokenOptions, authTokenReport, benchAuthToken } = await import('./auth-token.ts');
      const figures = await benchAuthToken(authTokenOptions(env));
      return printed(authTokenReport(figures), authTokenHeadlines(figures));
    },
  },
  {
    name: 'coverage union',
    run: async () => {
      const { coverageUnionHeadlines, coverageUnionReport } = await import('./coverage-union.ts');
      const { figures, headlines } = await coverageUnionHeadlines();
      return printed(coverageUnionReport(figures.at(-1)!), headlines);
    },
  },
  {
    name: 'analytics table build',
    run: async () => {
      const { analyticsBuildHeadlines, benchAnalyticsBuild } = await import('./analytics-table.ts');
      const figures = await benchAnalyticsBuild();
      const rows = analyticsBuildHeadlines(figures);
      return printed([JSON.stringify(figures, null, 1)], rows);
    },
  },
  {
    name: 'analytics API',
    run: async () => {
      const { analyticsApiHeadlines, analyticsApiOptions, analyticsApiReport, benchAnalyticsApi } =
        await import('./analytics-api.ts');
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
    // SPI-3 (its SciPy peer fits each cell and month in turn) 20 x 20 unless BENCH_INDICES_PERCENTILE_SIZE. The
    // indices of the larger cube read a zlib store (as the writers store) and an uncompressed one, each against CDO
    // over netCDF stored alike, unless BENCH_STORE_CODECS.
    name: 'climate indices',
    run: async () => {
      const { benchClimateIndices, CALENDAR_DAY_PERCENTILE_INDICES, CLIMATE_INDEX_PROCESSES, climateIndicesHeadlines } =
        await import('./climate-indices.ts');
      const others = await benchClimateIndices(
        20,
        Number(env.BENCH_INDICES_SIZE ?? 100),
        Number(env.BENCH_RUNS ?? 3),
        CLIMATE_INDEX_PROCESSES.filter((p) => !CALENDAR_DAY_PERCENTILE_INDICES.includes(p)),
        (env.BENCH_STORE_CODECS ?? 'zlib,none').split(',') as Parameters<typeof benchClimateIndices>[4],
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

/** A section's run in this process, as a child forked by the loop below: its rows go back to the parent. */
const child = env.BENCH_SECTION_CHILD;
if (child !== undefined) {
  const section = sections.find(({ name }) => name === child)!;
  const rows = await section.run();
  await new Promise<void>((resolve, reject) =>
    process.send!(rows, (err: Error | null) => (err ? reject(err) : resolve())),
  );
  // The Icechunk/wasm pitfall of DESIGN.md §4 aside, open handles must not keep a benchmark alive.
  process.exit(0);
}

const chosen = env.BENCH_SECTIONS?.split(',').map((name) => name.trim().toLowerCase());
const unknown = chosen?.filter((name) => !names.some((known) => known.toLowerCase() === name)) ?? [];
if (unknown.length > 0) {
  console.error(`BENCH_SECTIONS names no section: ${unknown.join(', ')}. The sections: ${names.join(', ')}.`);
  process.exit(2);
}

/** Runs a section in a fresh process (this file, forked) and returns its rows; rejects when it fails. */
function runInChild(name: string): Promise<Headline[]> {
  return new Promise((resolve, reject) => {
    const forked = fork(import.meta.filename, [], { env: { ...env, BENCH_SECTION_CHILD: name }, stdio: 'inherit' });
    let rows: Headline[] | undefined;
    forked.on('message', (message) => (rows = message as Headline[]));
    forked.on('error', reject);
    forked.on('exit', (code, signal) =>
      rows && code === 0
        ? resolve(rows)
        : reject(new Error(`section ${name} ended with ${signal ?? `exit code ${code}`}`)),
    );
  });
}

const rows: MeasuredHeadline[] = [];
const failed: string[] = [];
for (const section of sections.filter(({ name }) => !chosen || chosen.includes(name.toLowerCase()))) {
  console.log(`\n## ${section.name}`);
  const load = loadavg()[0]!;
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  try {
    const measured = await runInChild(section.name);
    const end = loadavg()[0]!;
    rows.push(
      ...measured.map((row) => ({ ...row, section: section.name, load: [load, end] as [number, number], date })),
    );
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    failed.push(section.name);
  }
}
const page = join(import.meta.dirname, '../docs/performance.md');
await writeHeadlineTable(page, rows, names);
console.log(`\nThe table of current figures is written at the top of ${page}.`);
if (failed.length > 0) {
  console.error(`Sections that failed (their rows are kept as they were): ${failed.join(', ')}.`);
  process.exit(1);
}
process.exit(0);
