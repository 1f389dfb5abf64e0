/**
 * Feature collections against GDAL in one run (issue 6), on the same GeoJSON file of `count` polygons:
 * - write: Stratus parses, validates and writes GeoParquet (what a refresh does after the fetch), against
 *   `ogr2ogr` converting the file to FlatGeobuf (GDAL 3.6 here has no Parquet driver);
 * - read: Stratus reads its GeoParquet back into GeoJSON features (the `url` provider's GeoParquet path), against
 *   OGR reading every feature of its FlatGeobuf (geometry as WKB and every field).
 * Figures are features per second.
 */
import { readFile, rm, stat, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeGeoParquet } from '../core/features/geoparquet.ts';
import { readGeoParquetDocument } from '../core/features/geoparquet-read.ts';
import { prepareFeatures } from '../core/features/prepare.ts';
import { python } from '../test/support/python.ts';

const PEER = join(import.meta.dirname, 'feature-peer.py');
/** Vertices of each polygon's ring, about what simplified district boundaries have. */
const VERTICES = 32;

export interface FeatureFigures {
  count: number;
  parquetMegabytes: number;
  peerMegabytes: number;
  write: { stratusPerSecond: number; peerPerSecond: number };
  read: { stratusPerSecond: number; peerPerSecond: number };
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

export async function benchFeatures(count: number): Promise<FeatureFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-features-'));
  try {
    const source = join(root, 'features.geojson');
    await writeFile(source, JSON.stringify(polygons(count)));
    const parquet = join(root, 'features.parquet');

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

    const fgb = join(root, 'features.fgb');
    const peer = await python<{ write_seconds: number; read_seconds: number; count: number }>(
      await readFile(PEER, 'utf8'),
      [source, fgb],
      600_000,
    );
    if (peer.count !== count) throw new Error(`the peer read ${peer.count} features of ${count}`);
    return {
      count,
      parquetMegabytes: (await stat(parquet)).size / 1e6,
      peerMegabytes: (await stat(fgb)).size / 1e6,
      write: { stratusPerSecond: count / writeSeconds, peerPerSecond: count / peer.write_seconds },
      read: { stratusPerSecond: count / readSeconds, peerPerSecond: count / peer.read_seconds },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
