/**
 * The union ingestion against a full rematerialization, in one run: a ten-year daily Zarr v2 store on the Sierra
 * Leone grid of the sample provider, then a version with one new day appended and a version with one stored day
 * rewritten, each spliced from the stored version, against the same union written whole. Figures are the bytes of
 * the new files a version adds (hard-linked chunk files excluded: they are the previous version's) and seconds
 * from opening the sink to its finish. The provider is the in-process sample, so the figures are the store's
 * work only. Not a peer: Stratus against itself. `node bench/coverage-union.ts` runs it alone (BENCH_YEARS,
 * BENCH_RUNS); `coverageUnionHeadlines` gives its headline rows.
 */
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatPeriod, periodRange, type Period } from '../core/periods/index.ts';
import { sampleProvider } from '../core/providers/sample.ts';
import { openCubeSink } from '../core/stores/open.ts';
import type { Splice, StoreFormat } from '../core/stores/store.ts';
import type { Headline } from './headline.ts';
import { SIERRA_LEONE } from './rasters.ts';

const FORMAT: StoreFormat = { format: 'zarr', zarrVersion: 2 };
const FULL = 'full rematerialization';

export interface CoverageUnionFigures {
  periods: number;
  cases: { name: string; bytes: number; seconds: number }[];
}

/** Bytes of the files in `dir` that no other version shares (a link count of 1). */
async function ownBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) {
      const file = await stat(join(entry.parentPath, entry.name));
      if (file.nlink === 1) bytes += file.size;
    }
  return bytes;
}

/** The sample provider over Sierra Leone, and `years` years of days from 2015-01-01. */
export async function sampleDays(years: number) {
  const session = await sampleProvider.open({
    parameters: {},
    bbox: SIERRA_LEONE,
    signal: new AbortController().signal,
  });
  const periods = periodRange(
    'daily',
    '2015-01-01',
    formatPeriod({ type: 'daily', start: new Date(Date.UTC(2015 + years, 0, 0)) }),
  );
  return { session, periods };
}

export async function benchCoverageUnion(years: number): Promise<CoverageUnionFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-union-'));
  try {
    const { session, periods: stored } = await sampleDays(years);
    const write = async (name: string, periods: Period[], fetched: Period[], previous?: string, splice?: Splice) => {
      const dir = join(root, name);
      await mkdir(dir, { recursive: true });
      const started = performance.now();
      const sink = await openCubeSink(
        dir,
        FORMAT,
        { variable: 'value', periodType: 'daily', periods, grid: session.grid, attributes: { title: 'bench' } },
        previous,
        splice,
      );
      for (const period of fetched) await sink.append(await session.read(period));
      await sink.finish();
      return { name, seconds: (performance.now() - started) / 1000, bytes: await ownBytes(dir), dir };
    };
    const base = await write('stored', stored, stored);
    const next = periodRange('daily', formatPeriod(stored[0]!), '2025-01-01').slice(0, stored.length + 1);
    const day = stored[Math.floor(stored.length / 2)]!;
    const cases = [
      await write('append one day (union)', next, next.slice(-1), base.dir, {
        offset: 0,
        from: stored.length,
        to: stored.length + 1,
      }),
      await write(`rewrite ${formatPeriod(day)} (union)`, stored, [day], base.dir, {
        offset: 0,
        from: Math.floor(stored.length / 2),
        to: Math.floor(stored.length / 2) + 1,
      }),
      await write(FULL, next, next),
    ];
    return { periods: stored.length, cases: cases.map(({ name, bytes, seconds }) => ({ name, bytes, seconds })) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export function coverageUnionReport(figures: CoverageUnionFigures): string[] {
  return [
    `Union ingestion into a ${figures.periods}-day Zarr v2 store (sample provider, Sierra Leone grid):`,
    '',
    '| version | bytes written | seconds |',
    '| --- | ---: | ---: |',
    ...figures.cases.map((c) => `| ${c.name} | ${c.bytes.toLocaleString('en-US')} | ${c.seconds.toFixed(2)} |`),
  ];
}

/**
 * The headline rows of `runs` runs: each union version against the full rematerialization of the same union
 * (its seconds over theirs), with the bytes each writes in the figure (the same in every run).
 */
export async function coverageUnionHeadlines(
  years = Number(process.env.BENCH_YEARS ?? 10),
  runs = Number(process.env.BENCH_RUNS ?? 3),
): Promise<{ figures: CoverageUnionFigures[]; headlines: Headline[] }> {
  const figures: CoverageUnionFigures[] = [];
  for (let run = 0; run < runs; run++) figures.push(await benchCoverageUnion(years));
  const seconds = (f: CoverageUnionFigures, name: string) => f.cases.find((c) => c.name === name)!.seconds;
  const [first] = figures;
  const full = first!.cases.find((c) => c.name === FULL)!;
  const headlines = first!.cases
    .filter((c) => c.name !== FULL)
    .map((c) => ({
      figure:
        `${c.name} into a ${first!.periods}-day daily Zarr v2 store: ${c.bytes.toLocaleString('en-US')} bytes ` +
        `written against ${full.bytes.toLocaleString('en-US')}`,
      peer: 'the full rematerialization of the same union (Stratus)',
      ratios: figures.map((f) => seconds(f, FULL) / seconds(f, c.name)),
      command: 'node bench/coverage-union.ts',
    }));
  return { figures, headlines };
}

if (import.meta.main) {
  const { figures, headlines } = await coverageUnionHeadlines();
  console.log(coverageUnionReport(figures.at(-1)!).join('\n'));
  console.log(JSON.stringify(headlines, null, 1));
  process.exit(0);
}
