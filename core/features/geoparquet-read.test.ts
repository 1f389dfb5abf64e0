import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { encodeGeoParquet } from './geoparquet.ts';
import { readGeoParquetDocument } from './geoparquet-read.ts';
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
