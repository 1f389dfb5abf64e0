/**
 * `GET /analytics/{table}` under load: a synthetic table of 2,000 org units × 10 years monthly (mean and sum),
 * written with hyparquet-writer as a build writes it, served by the API server in this process over an embedded
 * cluster; autocannon in its own process, 32 connections. Two queries: one org unit's 10-year monthly series, and
 * one month across every org unit. Prints p50 and p95 latency per run (every response timed by the load generator,
 * `latency-load.ts`) and their medians against the goals, and the server's CPU time per request, which a loaded
 * machine does not inflate as it does latency; `analyticsApiHeadlines` are its rows of the table of current figures.
 *
 * `node bench/analytics-api.ts` (BENCH_SECONDS, BENCH_ANALYTICS_RUNS, BENCH_API_CONNECTIONS).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { buildApp } from '../api-server/app.ts';
import {
  columnsByFile,
  columnsOfRows,
  writeAnalyticsTableVersion,
  type AnalyticsRow,
} from '../core/analytics/table-file.ts';
import { openEmbeddedCluster } from '../core/cluster/embedded/index.ts';
import { parseInstanceConfig } from '../core/config/index.ts';
import { writeGeoParquet } from '../core/features/geoparquet.ts';
import { analyticsTableKind } from '../core/resources/analytics-table/schema.ts';
import { featureCollectionKind } from '../core/resources/feature-collection/schema.ts';
import { API_VERSION } from '../core/resources/registry.ts';
import { analyticsTablePath, analyticsTableStaging } from '../core/stores/layout.ts';
import type { Headline } from './headline.ts';
import { latencyLoad } from './latency-load.ts';
import { median } from './summary.ts';

const ORG_UNITS = 2_000;
const YEARS = 10;
const NAMESPACE = 'default';
const COLLECTION_PATH = 'features/bench-units/v1.parquet';

const ouId = (i: number) => `OU${String(i).padStart(5, '0')}`;
const months = Array.from(
  { length: YEARS * 12 },
  (_, i) => `${2015 + Math.floor(i / 12)}${String((i % 12) + 1).padStart(2, '0')}`,
);

function tableRows(): AnalyticsRow[] {
  const rows: AnalyticsRow[] = [];
  for (let o = 0; o < ORG_UNITS; o++)
    for (const [p, pe] of months.entries())
      for (const stat of ['mean', 'sum'] as const)
        rows.push({
          ou: ouId(o),
          periodType: 'monthly',
          pe,
          stat,
          value: o + p / 1000 + (stat === 'sum' ? 30 : 0),
          sourceVersion: 'v1',
        });
  return rows;
}

/** Small squares on a grid: the geometry is never read by the route, only the id and name. */
async function writeOrgUnits(storageRoot: string) {
  await writeGeoParquet(
    join(storageRoot, COLLECTION_PATH),
    Array.from({ length: ORG_UNITS }, (_, i) => {
      const [x, y] = [-13 + (i % 50) * 0.05, 7 + Math.floor(i / 50) * 0.05];
      return {
        geometry: {
          type: 'Polygon' as const,
          coordinates: [
            [
              [x, y],
              [x + 0.05, y],
              [x + 0.05, y + 0.05],
              [x, y],
            ],
          ],
        },
        properties: { code: ouId(i), name: `Org unit ${i}` },
      };
    }),
  );
}

export interface AnalyticsApiFigure {
  label: string;
  path: string;
  goalP95Ms: number;
  p50Ms: number[];
  p95Ms: number[];
  /** The server's CPU time (user + system, this process) per answered request: robust to a loaded machine. */
  cpuPerRequestMs: number[];
}

export async function benchAnalyticsApi(options: { seconds: number; runs: number; connections: number }) {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-analytics-'));
  const storageRoot = join(root, 'store');
  const cluster = await openEmbeddedCluster({ dataDir: root });
  try {
    await writeOrgUnits(storageRoot);
    const rows = tableRows();
    const path = analyticsTablePath('bench', 'v1');
    await writeAnalyticsTableVersion(
      analyticsTableStaging(storageRoot, 'bench', 'v1'),
      join(storageRoot, path),
      columnsByFile(columnsOfRows(rows)),
    );
    await cluster.create(featureCollectionKind, {
      apiVersion: API_VERSION,
      kind: 'FeatureCollection',
      metadata: { name: 'bench-units', namespace: NAMESPACE },
      spec: { name: 'Bench org units', idProperty: 'code' },
    });
    await cluster.create(analyticsTableKind, {
      apiVersion: API_VERSION,
      kind: 'AnalyticsTable',
      metadata: { name: 'bench', namespace: NAMESPACE },
      spec: { source: { dataset: 'bench' }, featureCollection: 'bench-units', statistics: ['mean', 'sum'] },
    });
    const version = {
      id: 'v1',
      path,
      sourceVersion: 'v1',
      featureCollectionPath: COLLECTION_PATH,
      generation: 1,
      rows: rows.length,
      computedPeriods: months.length,
      cellsRead: 0,
      publishedAt: new Date().toISOString(),
    };
    await cluster.patchStatus(
      analyticsTableKind,
      'bench',
      { type: 'merge', body: { status: { table: version, versions: [version] } } },
      NAMESPACE,
    );
    const app = await buildApp({
      cluster,
      config: parseInstanceConfig('instance.name = Bench\ninstance.bbox = -13.5,6.9,-10.2,10.0\n', 'bench'),
      registry: new Registry(),
      logger: false,
      storageRoot,
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const figures: AnalyticsApiFigure[] = [
      {
        label: `one org unit's ${YEARS}-year monthly series (${months.length} rows)`,
        path: `/analytics/bench?ou=${ouId(1234)}&stat=mean`,
        goalP95Ms: 20,
      },
      {
        label: `one month across ${ORG_UNITS} org units (${ORG_UNITS} rows)`,
        path: `/analytics/bench?pe=${months[60]}&stat=mean`,
        goalP95Ms: 50,
      },
    ].map((f) => ({ ...f, p50Ms: [], p95Ms: [], cpuPerRequestMs: [] }));
    try {
      for (const figure of figures) {
        const check = await fetch(`${address}${figure.path}`);
        const body = (await check.json()) as { height: number };
        if (check.status !== 200) throw new Error(`${figure.path}: ${check.status}`);
        figure.label += `, ${body.height} rows answered`;
        await latencyLoad(`${address}${figure.path}`, 2, options.connections);
      }
      for (let r = 0; r < options.runs; r++)
        for (const figure of figures) {
          const before = process.cpuUsage();
          const result = await latencyLoad(`${address}${figure.path}`, options.seconds, options.connections);
          const cpu = process.cpuUsage(before);
          figure.cpuPerRequestMs.push((cpu.user + cpu.system) / 1000 / result.requests);
          figure.p50Ms.push(result.p50Ms);
          figure.p95Ms.push(result.p95Ms);
        }
    } finally {
      await app.close();
    }
    return figures;
  } finally {
    await cluster.close();
    await rm(root, { recursive: true, force: true });
  }
}

export const analyticsApiOptions = () => ({
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  runs: Number(process.env.BENCH_ANALYTICS_RUNS ?? 3),
  connections: Number(process.env.BENCH_API_CONNECTIONS ?? 32),
});

/** One row per query: its p95 latency against the goal's, as the ratio goal / p95 (met at 1 or more). */
export function analyticsApiHeadlines(figures: AnalyticsApiFigure[], connections: number): Headline[] {
  return figures.map((f) => ({
    figure: `GET /analytics p95 latency, ${f.label}, ${connections} connections`,
    peer: `the goal: p95 < ${f.goalP95Ms} ms`,
    ratios: f.p95Ms.map((p95) => f.goalP95Ms / p95),
    goal: 1,
    command: 'node bench/analytics-api.ts',
  }));
}

export function analyticsApiReport(figures: AnalyticsApiFigure[], connections: number): string[] {
  return figures.map(
    (f) =>
      `${f.label}, ${connections} connections: p50 ${median(f.p50Ms).toFixed(1)} ms, p95 ${median(f.p95Ms).toFixed(1)} ms ` +
      `(runs: ${f.p95Ms.map((p) => p.toFixed(1)).join(', ')}; goal p95 < ${f.goalP95Ms} ms); server CPU ${median(f.cpuPerRequestMs).toFixed(2)} ms a request`,
  );
}

if (import.meta.main) {
  const options = analyticsApiOptions();
  const figures = await benchAnalyticsApi(options);
  for (const line of analyticsApiReport(figures, options.connections)) console.log(line);
}
