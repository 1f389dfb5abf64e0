/**
 * A split ingestion against the same ingestion in one worker, in one run: a year of daily CHIRPS-like COG windows
 * from nginx behind a proxy that holds every request for a round trip's time, as a remote provider does. Both run
 * as embedded worker processes through the ChildProcessRunner, the split one in parts at once. Figures are
 * periods/s, from the start of the attempt to its end (process starts and the completion included). Not a peer:
 * Stratus against itself, so the ratio is the gain of splitting (each part keeps its own read-ahead). Each run
 * times both again over the same files. `node bench/split-ingestion.ts` runs it alone (BENCH_DAYS, BENCH_RUNS).
 */
import { createServer, request, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestionKind } from '../core/resources/ingestion/schema.ts';
import { ChildProcessRunner } from '../operator/jobs/child-process-runner.ts';
import type { JobSpec, JobState } from '../operator/jobs/runner.ts';
import type { IngestionInput } from '../operator/worker/ingestion-input.ts';
import { startNginx } from './peers.ts';
import { makeChirpsCogs, SIERRA_LEONE } from './rasters.ts';
import type { Headline } from './headline.ts';
import { benchRuns, medianRange, repeat, times } from './summary.ts';

export interface SplitIngestionFigures {
  periods: number;
  parts: number;
  roundTripMs: number;
  runs: { splitPerSecond: number; wholePerSecond: number }[];
}

/** A reverse proxy to `target` that answers every request `delayMs` late. */
async function delayingProxy(target: string, delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((incoming, answer) => {
    setTimeout(() => {
      const forwarded = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: incoming.url,
          method: incoming.method,
          headers: incoming.headers,
        },
        (response) => {
          answer.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(answer);
        },
      );
      forwarded.on('error', () => answer.destroy());
      incoming.pipe(forwarded);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function finished(runner: ChildProcessRunner, name: string): Promise<JobState> {
  return new Promise((resolve) => {
    runner.onChange((job, state) => {
      if (job.name === name && state.phase !== 'running') resolve(state);
    });
  });
}

export async function benchSplitIngestion(
  days = 366,
  parts = 4,
  roundTripMs = 100,
  runs = benchRuns(),
): Promise<SplitIngestionFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-split-'));
  const runner = new ChildProcessRunner();
  try {
    const last = await makeChirpsCogs(join(root, 'cogs'), days);
    const nginx = await startNginx(join(root, 'nginx'), '/final/', join(root, 'cogs'));
    const proxy = await delayingProxy(nginx.url, roundTripMs);
    try {
      const input = (storageRoot: string): IngestionInput => ({
        run: 'bench',
        attempt: 1,
        datasetId: 'chirps',
        storageRoot,
        bbox: SIERRA_LEONE,
        provider: { name: 'chirps', parameters: { baseUrl: `${proxy.url}/final` } },
        dataset: { name: 'CHIRPS', variable: 'precip', periodType: 'daily', format: 'zarr', zarrVersion: 2 },
        start: '2024-01-01',
        end: last,
        overwrite: false,
        display: {},
        keepVersions: [],
        createdAt: new Date().toISOString(),
      });
      const timed = async (job: JobSpec) => {
        const done = finished(runner, job.name);
        const start = performance.now();
        runner.start(job);
        const state = await done;
        if (state.phase !== 'succeeded') throw new Error(`${job.name} ${state.phase}: ${state.error?.message}`);
        return (performance.now() - start) / 1000;
      };
      const owner = { kind: ingestionKind, name: 'bench' };
      const figures = await repeat(runs, async (run) => {
        const whole = await timed({
          name: `whole-${run}`,
          task: 'ingestion',
          input: input(join(root, `whole-${run}`)),
          owner,
        });
        const split = await timed({
          name: `split-${run}`,
          task: 'ingestion',
          input: input(join(root, `split-${run}`)),
          owner,
          parts: { count: parts, parallelism: parts },
        });
        await rm(join(root, `whole-${run}`), { recursive: true, force: true });
        await rm(join(root, `split-${run}`), { recursive: true, force: true });
        return { splitPerSecond: days / split, wholePerSecond: days / whole };
      });
      return { periods: days, parts, roundTripMs, runs: figures };
    } finally {
      await proxy.close();
      await nginx.stop();
    }
  } finally {
    await runner.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/** The table: each figure and ratio as the median of the runs with their range. */
export function splitIngestionReport({ periods, parts, roundTripMs, runs }: SplitIngestionFigures): string[] {
  const rate = (n: number) => n.toFixed(1);
  return [
    `Split ingestion (${roundTripMs} ms per upstream request, embedded worker processes), ${runs.length} runs: median (range)`,
    '| measurement | Stratus, split (periods/s) | Stratus in one worker, not a peer (periods/s) | ratio |',
    '| --- | --- | --- | --- |',
    `| ${periods} daily COG windows in ${parts} parts | ${medianRange(
      runs.map((r) => r.splitPerSecond),
      rate,
    )} | ${medianRange(
      runs.map((r) => r.wholePerSecond),
      rate,
    )} | ${medianRange(
      runs.map((r) => r.splitPerSecond / r.wholePerSecond),
      times,
    )} |`,
  ];
}

/** The row of the table of current figures: the gain of splitting, Stratus against itself in one worker. */
export function splitIngestionHeadlines({ periods, parts, roundTripMs, runs }: SplitIngestionFigures): Headline[] {
  return [
    {
      figure: `split ingestion, ${periods} daily COG windows in ${parts} parts, ${roundTripMs} ms per upstream request`,
      peer: 'not a peer: Stratus ingesting the same in one worker',
      ratios: runs.map((r) => r.splitPerSecond / r.wholePerSecond),
      command: 'node bench/split-ingestion.ts',
    },
  ];
}

if (import.meta.main) {
  console.log(splitIngestionReport(await benchSplitIngestion(Number(process.env.BENCH_DAYS ?? 366))).join('\n'));
  process.exit(0);
}
