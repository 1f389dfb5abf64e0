/**
 * Feature collections against GDAL in one run, on the same GeoJSON file of `count` polygons:
 * - write: Stratus parses, validates and writes GeoParquet (what a refresh does after the fetch), against GDAL's
 *   VectorTranslate converting the file to FlatGeobuf without the spatial index (GDAL 3.6 here has no Parquet driver);
 * - read: Stratus reads its GeoParquet back into GeoJSON features (the `url` provider's GeoParquet path), against
 *   OGR reading every feature of its FlatGeobuf (geometry as WKB and every field), feature by feature and as
 *   columns (OGR's Arrow stream), the faster way and the headline's peer.
 * Figures are features per second. Both sides are single-threaded and timed inside their own process, the peer by
 * Python around each GDAL call (bench/feature-peer.py); Stratus flushes its file, GDAL does not. Each run measures
 * both sides again on the same source file; the ratio is the median of the runs.
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
import type { Headline } from './headline.ts';
import { benchRuns, medianRange, repeat, round, times } from './summary.ts';

const PEER = join(import.meta.dirname, 'feature-peer.py');
/** Vertices of each polygon's ring, about what simplified district boundaries have. */
const VERTICES = 32;

interface Rates {
  stratusPerSecond: number;
  peerPerSecond: number;
}

export interface FeatureRun {
  write: Rates;
  /** Stratus's read against OGR's feature-by-feature read. */
  readLoop: Rates;
  /** Stratus's read against OGR's columnar read. */
  readColumns: Rates;
}

interface PeerRead {
  seconds: number;
  count: number;
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
      const peer = await python<{ write_seconds: number; loop: PeerRead; columns: PeerRead }>(
        await readFile(PEER, 'utf8'),
        [source, fgb],
        600_000,
      );
      for (const read of [peer.loop, peer.columns])
        if (read.count !== count) throw new Error(`the peer read ${read.count} features of ${count}`);
      const stratusPerSecond = count / readSeconds;
      return {
        write: { stratusPerSecond: count / writeSeconds, peerPerSecond: count / peer.write_seconds },
        readLoop: { stratusPerSecond, peerPerSecond: count / peer.loop.seconds },
        readColumns: { stratusPerSecond, peerPerSecond: count / peer.columns.seconds },
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
  const row = (label: string, pick: (r: FeatureRun) => Rates) => {
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
      `write: GeoJSON -> GeoParquet (${parquetMegabytes.toFixed(1)} MB, flushed) / VectorTranslate -> FlatGeobuf, no spatial index (${peerMegabytes.toFixed(1)} MB, not flushed)`,
      (r) => r.write,
    ),
    row('read every feature (GeoParquet with hyparquet / FlatGeobuf with OGR, feature by feature)', (r) => r.readLoop),
    row('read every feature (GeoParquet with hyparquet / FlatGeobuf with OGR, Arrow columns)', (r) => r.readColumns),
  ];
}

const PEER_CONFIGURATION = 'GDAL 3.6 Python bindings in one process, FlatGeobuf without spatial index, 1 thread';

/** The rows of the table of current figures: the write, and the read against OGR's faster (columnar) read. */
export function featuresHeadlines({ count, runs }: FeatureFigures): Headline[] {
  const rows = [
    { what: 'write GeoJSON to GeoParquet', peer: 'VectorTranslate to FlatGeobuf', pick: (r: FeatureRun) => r.write },
    { what: 'read every feature', peer: 'Arrow stream read', pick: (r: FeatureRun) => r.readColumns },
  ];
  return rows.map(({ what, peer, pick }) => ({
    figure: `features, ${what}, ${round(count)} polygons`,
    peer: `${PEER_CONFIGURATION}: ${peer}`,
    ratios: runs.map(pick).map((s) => s.stratusPerSecond / s.peerPerSecond),
    command: 'node bench/features.ts',
  }));
}

if (import.meta.main) {
  console.log(featuresReport(await benchFeatures(Number(process.env.BENCH_FEATURES ?? 50_000))).join('\n'));
  process.exit(0);
}
