/**
 * API server throughput with autocannon, side by side with a bare `node:http` server that answers the same bytes
 * from memory: the ratio is what fastify, routing, negotiation, logging, the cache read and serialization cost.
 * Three processes: the Stratus API server (here, over an embedded cluster), the peer (`bench/json-peer.ts`) and
 * autocannon (its command line, one process per load), so that no load generator shares an event loop with the
 * server it measures. Each endpoint is measured `runs` times, alternating Stratus and the peer.
 *
 * `node bench/api.ts` runs it alone (BENCH_API_DATASETS, BENCH_SECONDS, BENCH_API_RUNS, BENCH_API_CONNECTIONS).
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import { buildApp } from '../api-server/app.ts';
import { openEmbeddedCluster } from '../core/cluster/embedded/index.ts';
import { parseInstanceConfig } from '../core/config/index.ts';
import { datasetKind } from '../core/resources/dataset/schema.ts';
import { API_VERSION } from '../core/resources/registry.ts';
import type { Headline } from './headline.ts';
import { median, medianRange, round, times } from './summary.ts';

const run = promisify(execFile);
const AUTOCANNON = join(import.meta.dirname, '../node_modules/autocannon/autocannon.js');
const PEER = join(import.meta.dirname, 'json-peer.ts');
/** A page of datasets at half the bare floor's rate or better: the goal the API lists were given. */
const FIRST_PAGE_GOAL = 0.5;
/** The headers Node's http server writes itself, on the peer's answers as on Stratus's. */
const NODE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

export interface ApiRun {
  stratusRequestsPerSecond: number;
  peerRequestsPerSecond: number;
  stratusLatencyP99Ms: number;
  peerLatencyP99Ms: number;
  /** Server CPU time (user + system) per answered request, in µs: robust to a loaded machine, unlike rates. */
  stratusCpuPerRequestUs: number;
  peerCpuPerRequestUs: number;
}

export interface EndpointFigures {
  path: string;
  connections: number;
  label: string;
  /** The rate against the bare peer the first page must reach (docs/performance.md, API lists). */
  goal?: number;
  bytes: number;
  runs: ApiRun[];
}

export interface ApiBenchOptions {
  datasets: number;
  seconds: number;
  runs: number;
  connections: number;
}

export interface Load {
  requests: { average: number; total: number };
  /** Milliseconds; autocannon reports no p95, p97_5 bounds it from above. */
  latency: { p50: number; p97_5: number; p99: number };
  non2xx: number;
  errors: number;
}

/** autocannon as a process of its own, reporting JSON. */
export async function load(url: string, seconds: number, connections: number): Promise<Load> {
  const { stdout } = await run(
    process.execPath,
    [AUTOCANNON, '-c', String(connections), '-d', String(seconds), '-t', '60', '-p', '1', '-j', url],
    { maxBuffer: 16 << 20 },
  );
  const result = JSON.parse(stdout) as Load;
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

const cpuMicros = ({ user, system }: NodeJS.CpuUsage) => user + system;

/** A server's CPU time while `run` loads it, per request answered. */
async function perRequestCpu(cpu: () => Promise<number>, run: () => Promise<Load>): Promise<[Load, number]> {
  const before = await cpu();
  const result = await run();
  return [result, ((await cpu()) - before) / result.requests.total];
}

/** What the peer answers a path with (`bench/json-peer.ts`). */
export interface PeerAnswer {
  headers: Record<string, string>;
  body: string;
}

/** The peer as a process of its own, answering each path with the headers and bytes in `bodiesFile`. */
async function startPeer(
  bodiesFile: string,
): Promise<{ url: string; cpuMicros(): Promise<number>; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [PEER, bodiesFile], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return {
    url: line.trim(),
    cpuMicros: async () => {
      child.send('cpu');
      const [usage] = (await once(child, 'message')) as [NodeJS.CpuUsage];
      return cpuMicros(usage);
    },
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Creates `count` Datasets, `parallel` at a time. */
async function createDatasets(cluster: Awaited<ReturnType<typeof openEmbeddedCluster>>, count: number) {
  let next = 0;
  const writer = async () => {
    for (let i = next++; i < count; i = next++)
      await cluster.create(datasetKind, {
        apiVersion: API_VERSION,
        kind: 'Dataset',
        metadata: { name: `dataset-${String(i).padStart(5, '0')}`, namespace: 'default' },
        spec: { source: 'sample', datasetName: `Sample dataset ${i}`, itemType: 'coverage', format: 'zarr' },
      });
  };
  await Promise.all(Array.from({ length: 16 }, writer));
}

export async function benchApi(options: ApiBenchOptions): Promise<EndpointFigures[]> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-api-'));
  const cluster = await openEmbeddedCluster({ dataDir: root });
  try {
    await createDatasets(cluster, options.datasets);
    const config = parseInstanceConfig('instance.name = Bench\ninstance.bbox = -13.5,6.9,-10.2,10.0\n', 'bench');
    const app = await buildApp({
      cluster,
      config,
      registry: new Registry(),
      logger: false,
      storageRoot: join(root, 'store'),
    });
    try {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });

      // The bodies as a client gets them, links and all; the middle page is the one `next` leads to from the first.
      // Pages of 100, or of half the datasets when a small run has fewer than two pages of 100.
      const limit = Math.max(1, Math.min(100, Math.floor(options.datasets / 2)));
      const first = (await (await fetch(`${address}/datasets?limit=${limit}`)).json()) as {
        links: { rel: string; href: string }[];
      };
      const nextLink = first.links.find((l) => l.rel === 'next');
      if (!nextLink) throw new Error(`GET /datasets?limit=${limit} of ${options.datasets} datasets has no next page`);
      const next = new URL(nextLink.href);
      const endpoints: { path: string; label: string; connections?: number; goal?: number }[] = [
        { path: '/health', label: 'GET /health' },
        {
          path: `/datasets?limit=${limit}`,
          label: `GET /datasets?limit=${limit} (first page of ${options.datasets})`,
          goal: FIRST_PAGE_GOAL,
        },
        { path: `${next.pathname}${next.search}`, label: `GET /datasets?limit=${limit}&token=... (second page)` },
        // 6.5 MB a response for 10,000: 4 connections, so that a request does not wait out the others' transfers.
        {
          path: '/datasets',
          label: `GET /datasets (all ${options.datasets}, no limit)`,
          connections: 4,
        },
      ];
      // The peer answers each path with Stratus's bytes and headers, so that both put the same bytes on the wire
      // (its own `date`, `connection`, `keep-alive` and `content-length`, as Node writes them for both).
      const bodies: Record<string, PeerAnswer> = {};
      for (const { path } of endpoints) {
        const response = await fetch(`${address}${path}`);
        const headers = Object.fromEntries([...response.headers].filter(([name]) => !NODE_HEADERS.has(name)));
        bodies[path] = { headers, body: await response.text() };
      }
      const bodiesFile = join(root, 'peer-bodies.json');
      await writeFile(bodiesFile, JSON.stringify(bodies));
      const peer = await startPeer(bodiesFile);

      const figures: EndpointFigures[] = endpoints.map((e) => ({
        ...e,
        connections: e.connections ?? options.connections,
        bytes: Buffer.byteLength(bodies[e.path]!.body),
        runs: [],
      }));
      try {
        // Warm both servers (JIT, the records' bytes) before anything is measured.
        for (const figure of figures) {
          await load(`${address}${figure.path}`, 2, figure.connections);
          await load(`${peer.url}${figure.path}`, 2, figure.connections);
        }
        for (let r = 0; r < options.runs; r++)
          for (const figure of figures) {
            // The server's process is this one (autocannon and the peer have their own), idle but for the server.
            const [stratus, stratusCpu] = await perRequestCpu(
              async () => cpuMicros(process.cpuUsage()),
              () => load(`${address}${figure.path}`, options.seconds, figure.connections),
            );
            const [bare, peerCpu] = await perRequestCpu(peer.cpuMicros, () =>
              load(`${peer.url}${figure.path}`, options.seconds, figure.connections),
            );
            figure.runs.push({
              stratusRequestsPerSecond: stratus.requests.average,
              peerRequestsPerSecond: bare.requests.average,
              stratusLatencyP99Ms: stratus.latency.p99,
              peerLatencyP99Ms: bare.latency.p99,
              stratusCpuPerRequestUs: stratusCpu,
              peerCpuPerRequestUs: peerCpu,
            });
          }
      } finally {
        await peer.stop();
      }
      return figures;
    } finally {
      await app.close();
    }
  } finally {
    await cluster.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** The table rows: the median of the runs with their range. */
export function apiReport(figures: EndpointFigures[], options: ApiBenchOptions): string[] {
  const lines = [
    `API server, ${options.datasets.toLocaleString('en-US')} datasets in embedded mode (autocannon in its own process, ` +
      `${options.connections} connections, ${options.seconds} s, ${options.runs} runs: median (range))`,
    '| endpoint | bytes | Stratus (req/s) | Stratus p99 (ms) | peer: bare node:http, own process (req/s) | ' +
      'peer p99 (ms) | ratio | ' +
      'server CPU per request, Stratus / peer (µs) | CPU ratio (peer / Stratus) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const f of figures) {
    const ratios = f.runs.map((r) => r.stratusRequestsPerSecond / r.peerRequestsPerSecond);
    lines.push(
      `| ${f.label}${f.connections === options.connections ? '' : `, ${f.connections} connections`} | ${round(f.bytes)} | ${medianRange(
        f.runs.map((r) => r.stratusRequestsPerSecond),
        round,
      )} | ${medianRange(
        f.runs.map((r) => r.stratusLatencyP99Ms),
        String,
      )} | ${medianRange(
        f.runs.map((r) => r.peerRequestsPerSecond),
        round,
      )} | ${medianRange(
        f.runs.map((r) => r.peerLatencyP99Ms),
        String,
      )} | ${medianRange(ratios, times)} | ${round(median(f.runs.map((r) => r.stratusCpuPerRequestUs)))} / ${round(
        median(f.runs.map((r) => r.peerCpuPerRequestUs)),
      )} | ${medianRange(
        f.runs.map((r) => r.peerCpuPerRequestUs / r.stratusCpuPerRequestUs),
        times,
      )} |`,
    );
  }
  return lines;
}

/** The rows of the table of current figures: each endpoint's rate against the bare server answering its bytes. */
export function apiHeadlines(figures: EndpointFigures[], options: ApiBenchOptions): Headline[] {
  return figures.map((f) => ({
    figure: `API ${f.label} rate, ${round(options.datasets)} datasets, ${f.connections} connections`,
    peer: 'bare node:http in its own process answering the same bytes from memory (a floor, not a product)',
    ratios: f.runs.map((r) => r.stratusRequestsPerSecond / r.peerRequestsPerSecond),
    ...(f.goal !== undefined ? { goal: f.goal } : {}),
    command: 'node bench/api.ts',
  }));
}

export function apiBenchOptions(env: NodeJS.ProcessEnv): ApiBenchOptions {
  return {
    datasets: Number(env.BENCH_API_DATASETS ?? 10_000),
    seconds: Number(env.BENCH_SECONDS ?? 10),
    runs: Number(env.BENCH_API_RUNS ?? 3),
    connections: Number(env.BENCH_API_CONNECTIONS ?? 32),
  };
}

if (import.meta.main) {
  const options = apiBenchOptions(process.env);
  console.log(apiReport(await benchApi(options), options).join('\n'));
  process.exit(0);
}
