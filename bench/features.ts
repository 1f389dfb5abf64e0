/**
 * Feature collections against GDAL in one run, on the same GeoJSON file of `count` polygons:
 * - write: Stratus parses, validates and writes GeoParquet (what a refresh does after the fetch), against
 *   `ogr2ogr` converting the file to FlatGeobuf (GDAL 3.6 here has no Parquet driver);
 * - read: Stratus reads its GeoParquet back into GeoJSON features (the `url` provider's GeoParquet path), against
 *   OGR reading every feature of its FlatGeobuf (geometry as WKB and every field).
 * Figures are features per second. Both sides are single-threaded; Stratus flushes its file, ogr2ogr does not, and
 * its time includes its process start. Each run measures both sides again on the same source file; the ratio the
 * table gives is the median of the runs (one run moved the read ratio from 0.84x to 1.59x).
 *
 * `node bench/features.ts` runs it alone (BENCH_FEATURES, BENCH_RUNS).
 */
import { readFile, rm, stat, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeGeoParquet } from '../core/features/geoparquet.ts';
import { readGeoParquetDocument } from '../core/features/geoparquet-read.ts';
import { prepareFeatures } from '../core/features/prepare.ts';
import { python } from '../test/support/python.ts';
import { benchRuns, medianRange, repeat, round, times } from './summary.ts';

const PEER = join(import.meta.dirname, 'feature-peer.py');
/** Vertices of each polygon's ring, about what simplified district boundaries have. */
const VERTICES = 32;

export interface FeatureRun {
  write: { stratusPerSecond: number; peerPerSecond: number };
  read: { stratusPerSecond: number; peerPerSecond: number };
}

export interface FeatureFigures {
  count: number;
  parquetMegabytes: number;
  peerMegabytes: number;
  runs: FeatureRun[];
}

/** `count` small star-shaped polygons on a grid over Sierra Leone, each with a code, a name and a number. */
function polygons(count: number) {
  const side = Math.ceil(Math.sqrt(count));
  const cell = 3 / side;
  const features = [];
  for (let k = 0; k < count; k++) {
    const [cx, cy] = [-13.5 + ((k % side) + 0.5) * cell, 6.9 + (Math.floor(k / side) + 0.5) * cell];
    const ring = Array.from({ length: VERTICES }, (_, v) => {
      const angle = (2 * Math.PI * v) / VERTICES;
      const radius = (cell / 2) * (v % 2 === 0 ? 0.9 : 0.6);
      return [cx + radius * Math.cos(angle), cy + radius * Math.sin(angle)];
    });
    features.push({
      type: 'Feature',
      properties: { code: `F${String(k).padStart(6, '0')}`, name: `Feature ${k}`, value: k * 0.5 },
      geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]]] },
    });
  }
  return { type: 'FeatureCollection', features };
}

export async function benchFeatures(count: number, runs = benchRuns()): Promise<FeatureFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-features-'));
  try {
    const source = join(root, 'features.geojson');
    await writeFile(source, JSON.stringify(polygons(count)));
    const parquet = join(root, 'features.parquet');
    const fgb = join(root, 'features.fgb');
    const figures = await repeat(runs, async (): Promise<FeatureRun> => {
      let start = performance.now();
      const document = JSON.parse(await readFile(source, 'utf8')) as unknown;
      const { features } = prepareFeatures(document, { origin: source, idProperty: 'code' });
      await writeGeoParquet(parquet, features);
      const writeSeconds = (performance.now() - start) / 1000;

      start = performance.now();
      const read = await readGeoParquetDocument(await readFile(parquet), parquet);
      const readSeconds = (performance.now() - start) / 1000;
      const readCount = (read.document as { features: unknown[] }).features.length;
      if (readCount !== count) throw new Error(`read ${readCount} features of ${count}`);

      await rm(fgb, { force: true });
      const peer = await python<{ write_seconds: number; read_seconds: number; count: number }>(
        await readFile(PEER, 'utf8'),
        [source, fgb],
        600_000,
      );
      if (peer.count !== count) throw new Error(`the peer read ${peer.count} features of ${count}`);
      return {
        write: { stratusPerSecond: count / writeSeconds, peerPerSecond: count / peer.write_seconds },
        read: { stratusPerSecond: count / readSeconds, peerPerSecond: count / peer.read_seconds },
      };
    });
    return {
      count,
      parquetMegabytes: (await stat(parquet)).size / 1e6,
      peerMegabytes: (await stat(fgb)).size / 1e6,
      runs: figures,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The table: each figure and ratio as the median of the runs with their range. */
export function featuresReport({ count, parquetMegabytes, peerMegabytes, runs }: FeatureFigures): string[] {
  const row = (label: string, pick: (r: FeatureRun) => { stratusPerSecond: number; peerPerSecond: number }) => {
    const sides = runs.map(pick);
    return `| ${label} | ${medianRange(
      sides.map((s) => s.stratusPerSecond),
      round,
    )} | ${medianRange(
      sides.map((s) => s.peerPerSecond),
      round,
    )} | ${medianRange(
      sides.map((s) => s.stratusPerSecond / s.peerPerSecond),
      times,
    )} |`;
  };
  return [
    `Feature collections, ${round(count)} polygons of ${VERTICES} vertices, ${runs.length} runs: median (range); one thread on each side`,
    '| measurement | Stratus (features/s) | peer: GDAL 3.6 (features/s) | ratio |',
    '| --- | --- | --- | --- |',
    row(
      `write: GeoJSON -> GeoParquet (${parquetMegabytes.toFixed(1)} MB, flushed) / ogr2ogr -> FlatGeobuf (${peerMegabytes.toFixed(1)} MB, not flushed)`,
      (r) => r.write,
    ),
    row('read every feature (GeoParquet with hyparquet / FlatGeobuf with OGR)', (r) => r.read),
  ];
}

if (import.meta.main) {
  console.log(featuresReport(await benchFeatures(Number(process.env.BENCH_FEATURES ?? 50_000))).join('\n'));
  process.exit(0);
}
