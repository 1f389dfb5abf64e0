/**
 * `/zarr` chunk GETs per second against nginx serving the same directory: 4 KiB and 1 MiB chunk
 * files, loaded by wrk in turn over many keys so neither server answers one file from a hot path only. Like for
 * like: Stratus in embedded mode with N API processes (`--api-processes N`, a separate process from this one)
 * against nginx with N worker processes, for each N, alternating the two over several runs. A third server shows
 * the floor of Node.js itself: bare `node:http` in N processes answering the same bytes and headers from memory
 * (bench/chunk-floor.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEmbedded } from '../cmd/embedded.ts';
import { datasetKind } from '../core/resources/dataset/schema.ts';
import { API_VERSION } from '../core/resources/registry.ts';
import { setCurrentVersion } from '../test/support/current-version.ts';
import { freePort } from '../scripts/free-port.ts';
import { startNginx, wrk } from './peers.ts';
import type { Headline } from './headline.ts';
import { benchRuns, medianRange, round, times } from './summary.ts';

export interface ChunkServingFigures {
  chunk: string;
  /** Processes serving on each side: Stratus's API processes, nginx's workers. */
  processes: number;
  /** Requests per second of each run, in the order run. */
  stratus: number[];
  nginx: number[];
  /** Bare `node:http` with as many processes (bench/chunk-floor.ts). */
  floor: number[];
}

export interface ZarrServingOptions {
  seconds: number;
  runs: number;
  processes: number[];
}

export function zarrServingOptions(env: NodeJS.ProcessEnv): ZarrServingOptions {
  return {
    seconds: Number(env.BENCH_SECONDS ?? 10),
    runs: benchRuns(env),
    processes: (env.BENCH_ZARR_PROCESSES ?? '1,2').split(',').map(Number),
  };
}

const SETS = [
  { chunk: '4 KiB', dir: 'small', size: 4096, count: 1000 },
  { chunk: '1 MiB', dir: 'big', size: 1 << 20, count: 64 },
];

export async function benchZarrServing(options: ZarrServingOptions): Promise<ChunkServingFigures[]> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-zarr-'));
  const version = join(root, 'store/datasets/bench/versions/v1');
  for (const set of SETS) {
    await mkdir(join(version, set.dir), { recursive: true });
    for (let i = 0; i < set.count; i++) await writeFile(join(version, set.dir, `${i}.0.0`), randomBytes(set.size));
  }
  const figures: ChunkServingFigures[] = [];
  try {
    for (const processes of options.processes) {
      const stratus = await startEmbedded(root, processes);
      const nginx = await startNginx(join(root, `nginx-${processes}`), '/zarr/bench/', version, processes);
      const floor = await startFloor(version, processes);
      try {
        await stratus.cluster.apply(datasetKind, {
          apiVersion: API_VERSION,
          kind: 'Dataset',
          metadata: { name: 'bench', namespace: 'default' },
          spec: { source: 'sample', datasetName: 'Bench', itemType: 'coverage', format: 'zarr' },
        });
        await setCurrentVersion(stratus.cluster, 'bench', 'v1');
        for (const set of SETS) {
          const paths = Array.from({ length: set.count }, (_, i) => `/zarr/bench/${set.dir}/${i}.0.0`);
          // Every process has seen the version before the clock starts (each follows the switch by its own watch).
          await wrk(stratus.url, paths, 1);
          const row: ChunkServingFigures = { chunk: set.chunk, processes, stratus: [], nginx: [], floor: [] };
          for (let run = 0; run < options.runs; run++) {
            row.stratus.push(await wrk(stratus.url, paths, options.seconds));
            row.nginx.push(await wrk(nginx.url, paths, options.seconds));
            row.floor.push(await wrk(floor.url, paths, options.seconds));
          }
          figures.push(row);
        }
      } finally {
        await floor.stop();
        await nginx.stop();
        await stratus.stop();
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return figures;
}

/**
 * Embedded mode over `root` as a production instance serves stores, with `processes` API processes: no
 * authorization server, the API server's request lines off (WARN).
 */
export async function startEmbedded(root: string, processes: number) {
  const config = join(root, 'stratus.properties');
  await writeFile(config, 'instance.name = Bench\noauth2.server.enabled = off\nlogging.level.api-server = WARN\n');
  return runEmbedded({
    dataDir: root,
    manifests: [],
    config,
    host: '127.0.0.1',
    port: await freePort(),
    apiProcesses: processes,
  });
}

/** bench/chunk-floor.ts over `dir` with `processes` processes, once it has printed its URL. */
async function startFloor(dir: string, processes: number): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(import.meta.dirname, 'chunk-floor.ts'), dir, '/zarr/bench/', String(processes)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (line: Buffer) => resolve(String(line).trim()));
    child.once('exit', (code) => reject(new Error(`bench/chunk-floor.ts ended (${code}) before it listened`)));
  });
  return {
    url,
    stop: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The table: the median of the runs with their range, and the median and range of the runs' ratios. */
export function zarrServingReport(figures: ChunkServingFigures[], options: ZarrServingOptions): string[] {
  const lines = [
    `/zarr chunk GETs (wrk in its own process, 2 threads, 32 connections, keys in turn; ${options.seconds} s, ` +
      `${options.runs} runs alternating: median (range); load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
    '| chunk | processes | Stratus, embedded (req/s) | peer: nginx, as many workers (req/s) | ratio | floor: bare node:http, as many processes (req/s) | floor to nginx | Stratus to floor |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const f of figures) {
    const ratio = (a: number[], b: number[]) =>
      medianRange(
        a.map((x, i) => x / b[i]!),
        times,
      );
    lines.push(
      `| ${f.chunk} | ${f.processes} | ${medianRange(f.stratus, round)} | ${medianRange(f.nginx, round)} | ${ratio(f.stratus, f.nginx)} | ${medianRange(f.floor, round)} | ${ratio(f.floor, f.nginx)} | ${ratio(f.stratus, f.floor)} |`,
    );
  }
  return lines;
}

/** The rows of the table of current figures: chunk GETs against nginx with as many workers. */
export function zarrServingHeadlines(figures: ChunkServingFigures[], options: ZarrServingOptions): Headline[] {
  return figures.map((f) => ({
    figure: `/zarr ${f.chunk} chunk GETs, ${f.processes} process(es), wrk 32 connections ${options.seconds} s`,
    peer: `nginx (Debian), ${f.processes} worker(s), sendfile, open_file_cache`,
    ratios: f.stratus.map((x, i) => x / f.nginx[i]!),
    command: 'node bench/zarr-serving.ts',
  }));
}

if (import.meta.main) {
  const options = zarrServingOptions(process.env);
  console.log(zarrServingReport(await benchZarrServing(options), options).join('\n'));
  process.exit(0);
}
