import wkx from 'wkx';
import { describe, expect, it } from 'vitest';
import type { Geometry } from './geometry.ts';
import { geometryToWkb } from './wkb.ts';

const ring = [
  [0, 0],
  [2, 0],
  [2, 2],
  [0, 2],
  [0, 0],
];
const hole = [
  [0.5, 0.5],
  [1, 0.5],
  [1, 1],
  [0.5, 0.5],
];

/** Decoded by wkx, which shares no code with Stratus. */
const decode = (bytes: Uint8Array) => wkx.Geometry.parse(Buffer.from(bytes)).toGeoJSON();

describe('geometryToWkb', () => {
  it.each<[string, Geometry]>([
    ['a point', { type: 'Point', coordinates: [-13.2, 8.48] }],
    [
      'a line string',
      {
        type: 'LineString',
        coordinates: [
          [0, 0],
          [1, 1],
          [2, 0],
        ],
      },
    ],
    ['a polygon with a hole', { type: 'Polygon', coordinates: [ring, hole] }],
    [
      'a multipoint',
      {
        type: 'MultiPoint',
        coordinates: [
          [0, 0],
          [1, 1],
        ],
      },
    ],
    [
      'a multilinestring',
      {
        type: 'MultiLineString',
        coordinates: [
          [
            [0, 0],
            [1, 1],
          ],
          [
            [2, 2],
            [3, 3],
          ],
        ],
      },
    ],
    ['a multipolygon', { type: 'MultiPolygon', coordinates: [[ring, hole], [ring]] }],
  ])('encodes %s as ISO WKB that an independent decoder reads back', (_name, geometry) => {
    expect(decode(geometryToWkb(geometry))).toEqual(geometry);
  });

  it('writes little-endian headers with the ISO type codes', () => {
    const bytes = geometryToWkb({ type: 'Polygon', coordinates: [ring] });
    expect(bytes[0]).toBe(1);
    expect(new DataView(bytes.buffer).getUint32(1, true)).toBe(3);
    expect(bytes.length).toBe(1 + 4 + 4 + 4 + 5 * 16);
  });

  it('writes positions of 3 coordinates as Z geometries', () => {
    const bytes = geometryToWkb({ type: 'Point', coordinates: [1, 2, 3] });
    expect(new DataView(bytes.buffer).getUint32(1, true)).toBe(1001);
    expect(decode(bytes)).toEqual({ type: 'Point', coordinates: [1, 2, 3] });
  });
});
