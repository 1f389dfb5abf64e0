import { describe, expect, it } from 'vitest';
import { RunError } from '../runs/errors.ts';
import { declaredCrs, featuresOf, FeatureValidationError, parseGeoJson, validateFeatures } from './validate.ts';

const square = [
  [0, 0],
  [1, 0],
  [1, 1],
  [0, 1],
  [0, 0],
];
const openSquare = [
  [0, 0],
  [1, 0],
  [1, 1],
  [0, 1],
];
const feature = (code: unknown, geometry: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'Feature',
  properties: { ...(code !== undefined && { code }), ...extra },
  geometry,
});

function problemsOf(run: () => unknown) {
  try {
    run();
  } catch (err) {
    if (err instanceof FeatureValidationError) return { code: err.code, problems: err.problems, message: err.message };
    throw err;
  }
  throw new Error('expected a FeatureValidationError');
}

describe('validateFeatures', () => {
  it('keeps valid features unchanged and reports no repair', () => {
    const input = [feature('A', { type: 'Polygon', coordinates: [square] }, { name: 'Alpha' })];
    expect(validateFeatures(input, 'code')).toEqual({
      features: [{ geometry: { type: 'Polygon', coordinates: [square] }, properties: { code: 'A', name: 'Alpha' } }],
      report: { received: 1, stored: 1, repairs: [] },
    });
  });

  it.each([
    [
      'an open polygon ring is closed',
      { type: 'Polygon', coordinates: [openSquare] },
      { type: 'Polygon', coordinates: [square] },
      [{ action: 'closed-ring', count: 1 }],
    ],
    [
      'open rings of a multipolygon are closed, each counted',
      { type: 'MultiPolygon', coordinates: [[openSquare], [openSquare, openSquare]] },
      { type: 'MultiPolygon', coordinates: [[square], [square, square]] },
      [{ action: 'closed-ring', count: 3 }],
    ],
    [
      'an empty hole is dropped',
      { type: 'Polygon', coordinates: [square, []] },
      { type: 'Polygon', coordinates: [square] },
      [{ action: 'dropped-empty-part', count: 1 }],
    ],
    [
      'an empty polygon of a multipolygon is dropped',
      { type: 'MultiPolygon', coordinates: [[square], []] },
      { type: 'MultiPolygon', coordinates: [[square]] },
      [{ action: 'dropped-empty-part', count: 1 }],
    ],
  ])('%s', (_name, geometry, repaired, repairs) => {
    const { features, report } = validateFeatures([feature('A', geometry)], 'code');
    expect(features[0]!.geometry).toEqual(repaired);
    expect(report.repairs).toEqual(repairs.map((r) => ({ feature: '#0 (id "A")', ...r })));
  });

  it.each([
    ['null', null],
    ['an empty polygon', { type: 'Polygon', coordinates: [] }],
    ['an empty point', { type: 'Point', coordinates: [] }],
    ['a multipolygon of empty parts', { type: 'MultiPolygon', coordinates: [[]] }],
  ])('drops a feature whose geometry is %s and reports it', (_name, geometry) => {
    const input = [feature('A', { type: 'Point', coordinates: [1, 2] }), feature('B', geometry)];
    const { features, report } = validateFeatures(input, 'code');
    expect(features.map((f) => f.properties.code)).toEqual(['A']);
    expect(report.received).toBe(2);
    expect(report.stored).toBe(1);
    expect(report.repairs).toContainEqual({ feature: '#1 (id "B")', action: 'dropped-empty-geometry', count: 1 });
  });

  it.each([
    [
      'a ring of two distinct positions',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 1],
          ],
        ],
      },
      /ring has 2 distinct positions/,
    ],
    ['a non-finite coordinate', { type: 'Point', coordinates: [0, null] }, /not 2 to 4 finite numbers/],
    ['a one-position line', { type: 'LineString', coordinates: [[0, 0]] }, /at least 2/],
    ['an unsupported type', { type: 'GeometryCollection', geometries: [] }, /"GeometryCollection" is not supported/],
    [
      'positions of mixed dimensions',
      {
        type: 'LineString',
        coordinates: [
          [0, 0],
          [1, 1, 5],
        ],
      },
      /positions mix 2 and 3 coordinates/,
    ],
  ])('refuses the collection for an unrepairable geometry: %s', (_name, geometry, message) => {
    const result = problemsOf(() => validateFeatures([feature('A', geometry)], 'code'));
    expect(result.code).toBe('InvalidFeatures');
    expect(result.problems).toEqual([
      { feature: '#0 (id "A")', problem: 'invalid-geometry', message: expect.stringMatching(message) },
    ]);
  });

  it('reports every missing and duplicate id by feature', () => {
    const point = { type: 'Point', coordinates: [0, 0] };
    const input = [
      feature('A', point),
      feature(undefined, point),
      feature('A', point),
      feature('', point),
      feature(7, point),
      feature('7', point),
    ];
    const result = problemsOf(() => validateFeatures(input, 'code'));
    expect(result.problems).toEqual([
      { feature: '#1', problem: 'missing-id', message: 'no value for id_property "code"' },
      { feature: '#2 (id "A")', problem: 'duplicate-id', message: 'id_property "code" value "A" is also the id of #0' },
      { feature: '#3', problem: 'missing-id', message: 'no value for id_property "code"' },
    ]);
    expect(result.message).toMatch(/^3 feature problem\(s\): #1: no value/);
  });

  it('does not count dropped features as duplicates', () => {
    const input = [feature('A', null), feature('A', { type: 'Point', coordinates: [0, 0] })];
    expect(validateFeatures(input, 'code').features).toHaveLength(1);
  });

  it.each([
    ['a feature that is not a Feature', [{ type: 'Polygon', coordinates: [] }], /#0 is not a GeoJSON Feature/],
    [
      'properties that are not an object',
      [{ type: 'Feature', properties: [1], geometry: null }],
      /properties is not an object/,
    ],
  ])('refuses %s as invalid GeoJSON', (_name, input, message) => {
    expect(() => validateFeatures(input, 'code')).toThrow(message);
    expect(() => validateFeatures(input, 'code')).toThrow(RunError);
  });
});

describe('parsing a document', () => {
  it('refuses a body that is not JSON, naming where it came from', () => {
    expect(() => parseGeoJson('{"type":', 'http://x/a.geojson')).toThrow(/http:\/\/x\/a.geojson is not JSON/);
  });

  it('refuses JSON that is not a FeatureCollection', () => {
    expect(() => featuresOf({ type: 'Feature' }, 'upload')).toThrow(/upload is not a GeoJSON FeatureCollection/);
  });

  it('reads the CRS a legacy document declares', () => {
    expect(declaredCrs({ crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::32628' } } })).toBe(
      'urn:ogc:def:crs:EPSG::32628',
    );
    expect(declaredCrs({ type: 'FeatureCollection', features: [] })).toBeUndefined();
  });
});
