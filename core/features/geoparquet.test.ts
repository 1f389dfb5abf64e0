import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { readParquet, readSchema } from 'parquet-wasm';
import wkx from 'wkx';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORED_CRS_PROJJSON } from './crs.ts';
import { encodeGeoParquet, writeGeoParquet } from './geoparquet.ts';
import type { Feature } from './geometry.ts';

const features: Feature[] = [
  {
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [-13, 8],
          [-12, 8],
          [-12, 9],
          [-13, 9],
          [-13, 8],
        ],
      ],
    },
    properties: { code: 'D1', name: 'Bo', population: 575478, coastal: false, tags: { level: 2 } },
  },
  {
    geometry: {
      type: 'MultiPolygon',
      coordinates: [
        [
          [
            [-11, 7],
            [-10.5, 7],
            [-10.5, 7.5],
            [-11, 7],
          ],
        ],
        [
          [
            [-10, 7],
            [-9.5, 7],
            [-9.5, 7.25],
            [-10, 7],
          ],
          [
            [-9.9, 7.05],
            [-9.7, 7.05],
            [-9.7, 7.1],
            [-9.9, 7.05],
          ],
        ],
      ],
    },
    properties: { code: 'D2', name: 'Kenema', population: 609891, coastal: null, tags: ['a', 'b'] },
  },
  { geometry: { type: 'Point', coordinates: [-13.2, 8.48] }, properties: { code: 'P1', name: 'Freetown' } },
];

/** GeoJSON of the features as a reader should see them: property order aside, exactly what was written. */
const expectedRows = features.map((f) => ({
  geometry: f.geometry,
  properties: {
    code: f.properties.code,
    name: f.properties.name,
    population: f.properties.population ?? null,
    coastal: f.properties.coastal ?? null,
    tags: f.properties.tags === undefined ? null : f.properties.tags,
  },
}));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geoparquet-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('encodeGeoParquet', () => {
  it('declares GeoParquet 1.1 metadata: primary column, types, PROJJSON CRS, bbox and the bbox covering', () => {
    const { bytes, summary } = encodeGeoParquet(features);
    const geo = JSON.parse(
      parquetMetadata(bytes.buffer as ArrayBuffer).key_value_metadata!.find((kv) => kv.key === 'geo')!.value!,
    );
    expect(geo.version).toBe('1.1.0');
    expect(geo.primary_column).toBe('geometry');
    expect(geo.columns.geometry).toEqual({
      encoding: 'WKB',
      geometry_types: ['MultiPolygon', 'Point', 'Polygon'],
      crs: STORED_CRS_PROJJSON,
      bbox: [-13.2, 7, -9.5, 9],
      covering: {
        bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] },
      },
    });
    expect(summary).toEqual({
      featureCount: 3,
      geometryTypes: ['MultiPolygon', 'Point', 'Polygon'],
      bbox: [-13.2, 7, -9.5, 9],
      properties: ['code', 'name', 'population', 'coastal', 'tags'],
    });
  });

  it('splits rows into row groups whose bbox statistics let a reader skip them', () => {
    const { bytes } = encodeGeoParquet(features, { rowGroupSize: 2 });
    const metadata = parquetMetadata(bytes.buffer as ArrayBuffer);
    expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([2, 1]);
    const xmin = metadata.row_groups.map(
      (g) => g.columns.find((c) => c.meta_data!.path_in_schema.join('.') === 'bbox.xmin')!.meta_data!.statistics,
    );
    expect(xmin.map((s) => [s!.min_value, s!.max_value])).toEqual([
      [-13, -11],
      [-13.2, -13.2],
    ]);
  });

  it('is read back by hyparquet with the same geometries and properties', async () => {
    const { bytes } = encodeGeoParquet(features);
    const rows = await parquetReadObjects({ file: bytes.buffer as ArrayBuffer });
    expect(
      rows.map(({ geometry, code, name, population, coastal, tags }) => ({
        geometry,
        properties: { code, name, population, coastal, tags },
      })),
    ).toEqual(expectedRows);
  });

  it('is read back by an independent reader (parquet-wasm, Arrow, wkx) with the same features', () => {
    const { bytes } = encodeGeoParquet(features);
    const schema = readSchema(bytes).intoIPCStream();
    const geo = JSON.parse(tableFromIPC(schema).schema.metadata.get('geo')!);
    expect(geo.primary_column).toBe('geometry');
    expect(geo.columns.geometry.crs.id).toEqual({ authority: 'EPSG', code: 4326 });
    const table = tableFromIPC(readParquet(bytes).intoIPCStream());
    expect(table.numRows).toBe(3);
    const rows = table.toArray().map((row) => row.toJSON());
    expect(
      rows.map((row) => ({
        geometry: wkx.Geometry.parse(Buffer.from(row.geometry as Uint8Array)).toGeoJSON(),
        properties: {
          code: row.code,
          name: row.name,
          population: row.population,
          coastal: row.coastal,
          tags: row.tags === null ? null : JSON.parse(row.tags as string),
        },
      })),
    ).toEqual(expectedRows);
    expect(rows.map((row) => (row.bbox as { toJSON(): unknown }).toJSON())).toEqual([
      { xmin: -13, ymin: 8, xmax: -12, ymax: 9 },
      { xmin: -11, ymin: 7, xmax: -9.5, ymax: 7.5 },
      { xmin: -13.2, ymin: 8.48, xmax: -13.2, ymax: 8.48 },
    ]);
  });

  it('writes an empty collection with no bbox', async () => {
    const { bytes, summary } = encodeGeoParquet([]);
    expect(summary).toEqual({ featureCount: 0, geometryTypes: [], bbox: undefined, properties: [] });
    expect(await parquetReadObjects({ file: bytes.buffer as ArrayBuffer })).toEqual([]);
  });

  it('refuses a property named like a reserved column', () => {
    const clash: Feature = { geometry: { type: 'Point', coordinates: [0, 0] }, properties: { bbox: 'x' } };
    expect(() => encodeGeoParquet([clash])).toThrow(/property "bbox" collides/);
  });
});

describe('writeGeoParquet', () => {
  it('replaces the previous file whole and leaves no temporary file', async () => {
    const path = join(dir, 'data.parquet');
    await writeFile(path, 'previous');
    const summary = await writeGeoParquet(path, features);
    expect(summary.featureCount).toBe(3);
    expect(await readdir(dir)).toEqual(['data.parquet']);
    const rows = await parquetReadObjects({ file: (await readFile(path)).buffer as ArrayBuffer });
    expect(rows).toHaveLength(3);
  });

  it('leaves the previous file when encoding fails', async () => {
    const path = join(dir, 'data.parquet');
    await writeFile(path, 'previous');
    const clash: Feature = { geometry: { type: 'Point', coordinates: [0, 0] }, properties: { geometry: 1 } };
    await expect(writeGeoParquet(path, [clash])).rejects.toThrow(/collides/);
    expect(await readFile(path, 'utf8')).toBe('previous');
    expect(await readdir(dir)).toEqual(['data.parquet']);
  });
});
