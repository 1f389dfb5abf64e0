import { describe, expect, it } from 'vitest';
import type { Feature } from './geometry.ts';
import { prepareFeatures } from './prepare.ts';
import { normalizeCrsName, reprojectToStored } from './reproject.ts';

const point = (x: number, y: number): Feature => ({ geometry: { type: 'Point', coordinates: [x, y] }, properties: {} });
const coordinates = (f: Feature) => (f.geometry as { coordinates: number[] }).coordinates;

describe('reprojectToStored', () => {
  it.each([undefined, 'EPSG:4326', 'urn:ogc:def:crs:OGC:1.3:CRS84', 'urn:ogc:def:crs:EPSG::4326'])(
    'leaves WGS 84 longitude/latitude (%s) as it is',
    (crs) => {
      const features = [point(-13.2, 8.5)];
      expect(reprojectToStored(features, crs)).toBe(features);
    },
  );

  // Expected values from GDAL: `echo X Y | gdaltransform -s_srs <source> -t_srs OGC:CRS84`.
  it('converts Web Mercator metres to degrees', () => {
    const [x, y] = coordinates(reprojectToStored([point(-1469463.5, 950287.1)], 'EPSG:3857')[0]!);
    expect(x).toBeCloseTo(-13.200415, 6);
    expect(y).toBeCloseTo(8.505165, 6);
  });

  it('converts a UTM zone (28N, Sierra Leone) to degrees and keeps a third coordinate', () => {
    const feature: Feature = { geometry: { type: 'Point', coordinates: [694770, 938150, 12] }, properties: {} };
    const [x, y, z] = coordinates(reprojectToStored([feature], 'urn:ogc:def:crs:EPSG::32628')[0]!);
    expect(x).toBeCloseTo(-13.230689, 6);
    expect(y).toBeCloseTo(8.483103, 6);
    expect(z).toBe(12);
  });

  it('refuses a CRS it has no definition for, by name', () => {
    expect(() => reprojectToStored([point(0, 0)], 'EPSG:2154')).toThrow(/declares CRS EPSG:2154; supported are/);
  });

  it('normalizes OGC URNs', () => {
    expect(normalizeCrsName('urn:ogc:def:crs:EPSG::3857')).toBe('EPSG:3857');
    expect(normalizeCrsName('urn:ogc:def:crs:OGC:1.3:CRS84')).toBe('OGC:1.3:CRS84');
  });
});

describe('prepareFeatures', () => {
  it('validates, then reprojects from the CRS the document declares', () => {
    const document = {
      type: 'FeatureCollection',
      crs: { type: 'name', properties: { name: 'EPSG:3857' } },
      features: [{ type: 'Feature', properties: { id: 'a' }, geometry: { type: 'Point', coordinates: [0, 0] } }],
    };
    const { features, report } = prepareFeatures(document, { origin: 'test', idProperty: 'id' });
    expect(coordinates(features[0]!).map((v) => Math.abs(v))).toEqual([0, 0]);
    expect(report).toEqual({ received: 1, stored: 1, repairs: [] });
  });
});
