/**
 * Feature collections against GDAL in one run, on the same GeoJSON file of `count` polygons:
 * - write: Stratus parses, validates and writes GeoParquet (what a refresh does after the fetch), against GDAL's
 *   VectorTranslate converting the file to FlatGeobuf without the spatial index (GDAL 3.6 here has no Parquet driver);
 * - read, like for like in two shapes: Stratus's GeoParquet read into GeoJSON feature objects (the `url` provider's
 *   GeoParquet path) against OGR reading its FlatGeobuf feature by feature (each feature's geometry exported as WKB
 *   and its fields); Stratus's columnar read (each geometry's WKB undecoded, one array per property) against OGR's
 *   Arrow stream (WKB undecoded, field columns), the headline.
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
import { readGeoParquetColumns, readGeoParquetDocument } from '../core/features/geoparquet-read.ts';
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
  /** Stratus's read into GeoJSON objects against OGR's feature-by-feature read. */
  readLoop: Rates;
  /** Stratus's columnar read against OGR's Arrow stream. */
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
      const objectSeconds = (performance.now() - start) / 1000;
      const objectCount = (read.document as { features: unknown[] }).features.length;
      if (objectCount !== count) throw new Error(`read ${objectCount} features of ${count}`);

      start = performance.now();
      const columns = await readGeoParquetColumns(await readFile(parquet), parquet);
      const columnSeconds = (performance.now() - start) / 1000;
      const columnCount = columns.wkb.filter((wkb) => wkb !== null).length;
      if (columnCount !== count) throw new Error(`read ${columnCount} geometries of ${count} as columns`);

      await rm(fgb, { force: true });
      const peer = await python<{ write_seconds: number; loop: PeerRead; columns: PeerRead }>(
        await readFile(PEER, 'utf8'),
        [source, fgb],
        600_000,
      );
      for (const read of [peer.loop, peer.columns])
        if (read.count !== count) throw new Error(`the peer read ${read.count} features of ${count}`);
      return {
        write: { stratusPerSecond: count / writeSeconds, peerPerSecond: count / peer.write_seconds },
        readLoop: { stratusPerSecond: count / objectSeconds, peerPerSecond: count / peer.loop.seconds },
        readColumns: { stratusPerSecond: count / columnSeconds, peerPerSecond: count / peer.columns.seconds },
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
    row(
      'read every feature as objects (GeoParquet into GeoJSON features / FlatGeobuf with OGR feature by feature, WKB and fields)',
      (r) => r.readLoop,
    ),
    row(
      'read every feature as columns (GeoParquet WKB and property columns / FlatGeobuf with OGR Arrow stream, WKB and field columns)',
      (r) => r.readColumns,
    ),
  ];
}

const PEER_CONFIGURATION = 'GDAL 3.6 Python bindings in one process, FlatGeobuf without spatial index, 1 thread';

/** The rows of the table of current figures: the write, and each read shape against OGR's read of that shape. */
export function featuresHeadlines({ count, runs }: FeatureFigures): Headline[] {
  const rows = [
    { what: 'write GeoJSON to GeoParquet', peer: 'VectorTranslate to FlatGeobuf', pick: (r: FeatureRun) => r.write },
    { what: 'read every feature as columns', peer: 'Arrow stream read', pick: (r: FeatureRun) => r.readColumns },
    {
      what: 'read every feature as GeoJSON objects',
      peer: 'feature-by-feature read',
      pick: (r: FeatureRun) => r.readLoop,
    },
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
