import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { encodeGeoParquet } from './geoparquet.ts';
import { readGeoParquetColumns, readGeoParquetDocument } from './geoparquet-read.ts';
import type { Geometry } from './geometry.ts';
import { geometryToWkb } from './wkb.ts';

/** A GeoParquet file as another writer might make it: a UTM geometry column and one property. */
function utmFile(crs: unknown) {
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'geom', data: [geometryToWkb({ type: 'Point', coordinates: [694770, 938150] })] },
      { name: 'pcode', data: ['SL0101'] },
    ],
    schema: [
      { name: 'root', num_children: 2 },
      { name: 'geom', type: 'BYTE_ARRAY', repetition_type: 'REQUIRED' },
      { name: 'pcode', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
    ],
    kvMetadata: [
      {
        key: 'geo',
        value: JSON.stringify({
          version: '1.0.0',
          primary_column: 'geom',
          columns: { geom: { encoding: 'WKB', geometry_types: ['Point'], ...(crs !== undefined && { crs }) } },
        }),
      },
    ],
  });
  return new Uint8Array(buffer);
}

describe('readGeoParquetDocument', () => {
  it('names the CRS of a PROJJSON id and keeps every non-geometry column as a property', async () => {
    const crs = { type: 'ProjectedCRS', name: 'WGS 84 / UTM zone 28N', id: { authority: 'EPSG', code: 32628 } };
    expect(await readGeoParquetDocument(utmFile(crs), 'test')).toEqual({
      document: {
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            properties: { pcode: 'SL0101' },
            geometry: { type: 'Point', coordinates: [694770, 938150] },
          },
        ],
      },
      crs: 'EPSG:32628',
    });
  });

  it('takes an absent CRS as GeoParquet default (no CRS to reproject from)', async () => {
    expect((await readGeoParquetDocument(utmFile(undefined), 'test')).crs).toBeUndefined();
  });

  it.each([
    ['a null CRS', utmFile(null), /undefined CRS/],
    ['a CRS without an id', utmFile({ type: 'ProjectedCRS', name: 'custom' }), /without an authority id/],
    [
      'a Parquet file without geo metadata',
      new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'a', data: [1] }] })),
      /no "geo" metadata/,
    ],
    ['bytes that are no Parquet', new TextEncoder().encode('PAR1 nope'), /not a GeoParquet file/],
  ])('refuses %s with InvalidGeoParquet', async (_name, bytes, message) => {
    await expect(readGeoParquetDocument(bytes, 'test')).rejects.toMatchObject({
      code: 'InvalidGeoParquet',
      message: expect.stringMatching(message),
    });
  });

  it('leaves the bbox covering of a Stratus file out of the properties', async () => {
    const { bytes } = encodeGeoParquet([
      { geometry: { type: 'Point', coordinates: [1, 2] }, properties: { code: 'A' } },
    ]);
    const { document } = await readGeoParquetDocument(bytes, 'test');
    expect((document as { features: { properties: unknown }[] }).features[0]!.properties).toEqual({ code: 'A' });
  });
});

describe('readGeoParquetColumns', () => {
  it('holds what the document read holds: each row its geometry as WKB and each property as a column', async () => {
    const geometries: Geometry[] = [
      { type: 'Point', coordinates: [-13.2, 8.4] },
      {
        type: 'LineString',
        coordinates: [
          [-13, 8],
          [-12.5, 8.25],
        ],
      },
      {
        type: 'Polygon',
        coordinates: [
          [
            [-11.5, 7.5],
            [-10.5, 7.5],
            [-11, 8.5],
            [-11.5, 7.5],
          ],
          [
            [-11.1, 7.7],
            [-11, 7.9],
            [-10.9, 7.7],
            [-11.1, 7.7],
          ],
        ],
      },
      {
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 0],
            ],
          ],
          [
            [
              [2, 2],
              [3, 2],
              [3, 3],
              [2, 2],
            ],
          ],
        ],
      },
    ];
    // Seven rows in row groups of three: the columns are assembled from several chunks each.
    const features = Array.from({ length: 7 }, (_, k) => ({
      geometry: geometries[k % geometries.length]!,
      properties: {
        code: `F${k}`,
        value: k % 3 === 0 ? null : k * 0.5,
        ...(k % 2 === 0 && { active: k % 4 === 0 }),
        ...(k === 5 && { tags: { source: 'survey', levels: [1, 2] } }),
      },
    }));
    const { bytes } = encodeGeoParquet(features, { rowGroupSize: 3 });

    const columns = await readGeoParquetColumns(bytes, 'test');
    const { document, crs } = await readGeoParquetDocument(bytes, 'test');
    const rows = (document as { features: { properties: Record<string, unknown>; geometry: Geometry }[] }).features;
    expect(columns.count).toBe(rows.length);
    expect(columns.crs).toBe(crs);
    expect([...columns.properties.keys()]).toEqual(Object.keys(rows[0]!.properties));
    rows.forEach((row, i) => {
      expect(columns.wkb[i]).toEqual(geometryToWkb(row.geometry));
      for (const [name, values] of columns.properties) expect(values[i]).toEqual(row.properties[name]);
    });
    expect(columns.properties.get('tags')![5]).toEqual({ source: 'survey', levels: [1, 2] });
  });

  it('refuses a file without geo metadata as the document read does', async () => {
    const bytes = new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'a', data: [1] }] }));
    await expect(readGeoParquetColumns(bytes, 'test')).rejects.toMatchObject({ code: 'InvalidGeoParquet' });
  });
});
