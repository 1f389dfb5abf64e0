import { describe, expect, it } from 'vitest';
import type { Bbox, Position } from '../../features/geometry.ts';
import { prepareFeatures } from '../../features/prepare.ts';
import { sampleFeatureProvider } from './sample.ts';

const bbox: Bbox = [-13.5, 6.9, -10.2, 10.0];
const fetchSample = (parameters: Record<string, unknown> = {}) =>
  sampleFeatureProvider.fetch({ parameters, bbox, signal: new AbortController().signal });

/** Shoelace area; positive for a counter-clockwise ring. */
const ringArea = (ring: Position[]) =>
  ring.slice(1).reduce((sum, [x, y], k) => sum + (ring[k]![0]! * y! - x! * ring[k]![1]!) / 2, 0);

describe('the sample feature provider', () => {
  it('cuts the extent into districts that are valid, uniquely coded and need no repair', async () => {
    const fetched = await fetchSample();
    const { features, report } = prepareFeatures(fetched.document, { origin: fetched.origin, idProperty: 'code' });
    expect(features.map((f) => f.properties.code)).toEqual(
      Array.from({ length: 12 }, (_, k) => `SD${String(k + 1).padStart(2, '0')}`),
    );
    expect(report).toEqual({ received: 12, stored: 12, repairs: [] });
  });

  it('tiles the extent exactly with counter-clockwise rings', async () => {
    const { features } = prepareFeatures((await fetchSample({ columns: 5, rows: 4 })).document, {
      origin: 'test',
      idProperty: 'code',
    });
    const areas = features.map((f) => ringArea((f.geometry as { coordinates: Position[][] }).coordinates[0]!));
    expect(areas.every((a) => a > 0)).toBe(true);
    const extentArea = (bbox[2] - bbox[0]) * (bbox[3] - bbox[1]);
    expect(areas.reduce((a, b) => a + b, 0)).toBeCloseTo(extentArea, 4);
  });

  it('is deterministic for a seed and differs between seeds', async () => {
    expect(await fetchSample({ seed: 7 })).toEqual(await fetchSample({ seed: 7 }));
    expect(await fetchSample({ seed: 7 })).not.toEqual(await fetchSample({ seed: 8 }));
  });

  it.each([{ columns: 0 }, { rows: 51 }, { rows: 2.5 }, { columns: 'four' }])('refuses parameters %j', async (p) => {
    await expect(fetchSample(p)).rejects.toMatchObject({ code: 'InvalidParameters' });
  });
});
