import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream, type Upstream } from '../../../test/support/upstream.ts';
import { writeGeoParquet } from '../../features/geoparquet.ts';
import type { Feature } from '../../features/geometry.ts';
import { prepareFeatures } from '../../features/prepare.ts';
import type { FeatureRequest } from './provider.ts';
import { urlFeatureProvider } from './url.ts';

const features: Feature[] = [
  {
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [-13, 8],
          [-12, 8],
          [-12, 9],
          [-13, 8],
        ],
      ],
    },
    properties: { code: 'A', name: 'Alpha', population: 10 },
  },
  { geometry: { type: 'Point', coordinates: [-12.5, 8.5] }, properties: { code: 'B', name: 'Beta', population: 20 } },
];
const geojson = { type: 'FeatureCollection', features: features.map((f) => ({ type: 'Feature', ...f })) };

let dir: string;
let upstream: Upstream;
let secured: Upstream;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'url-provider-'));
  await writeFile(join(dir, 'districts.geojson'), JSON.stringify(geojson));
  await writeFile(join(dir, 'broken.geojson'), '{"type": "FeatureCollection", "features": [');
  await writeFile(join(dir, 'fake.parquet'), 'not parquet at all');
  await writeGeoParquet(join(dir, 'districts.parquet'), features);
  upstream = await startUpstream(dir);
  secured = await startUpstream(dir, { user: 'reader', password: 's3cret' });
});
afterAll(async () => {
  await upstream.close();
  await secured.close();
  await rm(dir, { recursive: true, force: true });
});

const request = (parameters: Record<string, unknown>, extra: Partial<FeatureRequest> = {}): FeatureRequest => ({
  parameters: { attempts: 2, backoffMs: 5, timeoutMs: 300, ...parameters },
  bbox: [-13.5, 6.9, -10.2, 10],
  signal: new AbortController().signal,
  ...extra,
});
const fetchFeatures = async (parameters: Record<string, unknown>, extra: Partial<FeatureRequest> = {}) => {
  const fetched = await urlFeatureProvider.fetch(request(parameters, extra));
  return prepareFeatures(fetched.document, { origin: fetched.origin, idProperty: 'code', sourceCrs: fetched.crs });
};

describe('the url feature provider', () => {
  it('reads a GeoJSON FeatureCollection', async () => {
    const { features: read } = await fetchFeatures({ url: `${upstream.url}/districts.geojson` });
    expect(read).toEqual(features);
  });

  it('reads a GeoParquet file, leaving the bbox covering column out of the properties', async () => {
    const { features: read } = await fetchFeatures({ url: `${upstream.url}/districts.parquet` });
    expect(read).toEqual(features);
  });

  it('sends basic credentials from the Secret', async () => {
    const url = `${secured.url}/districts.geojson`;
    await expect(fetchFeatures({ url })).rejects.toMatchObject({ code: 'AuthenticationFailed' });
    const { features: read } = await fetchFeatures(
      { url },
      { credentials: { username: 'reader', password: 's3cret' } },
    );
    expect(read).toHaveLength(2);
  });

  it('retries a 500 and succeeds when the upstream recovers', async () => {
    upstream.fail('/districts.geojson', 'status-500');
    expect((await fetchFeatures({ url: `${upstream.url}/districts.geojson` })).features).toHaveLength(2);
  });

  it.each([
    ['answers 500 on every attempt', ['status-500', 'status-500'] as const, /failed after 2 attempts: HTTP 500/],
    ['never answers', ['hang', 'hang'] as const, /failed after 2 attempts: no answer within 300 ms/],
  ])('fails with UpstreamUnavailable when the upstream %s', async (_name, faults, message) => {
    upstream.fail('/districts.geojson', ...faults);
    await expect(fetchFeatures({ url: `${upstream.url}/districts.geojson` })).rejects.toMatchObject({
      code: 'UpstreamUnavailable',
      message: expect.stringMatching(message),
    });
  });

  it.each([
    ['a missing file', 'missing.geojson', 'SourceNotFound'],
    ['a body that is not JSON', 'broken.geojson', 'InvalidGeoJSON'],
    ['a .parquet file that is no Parquet', 'fake.parquet', 'InvalidGeoParquet'],
  ])('fails with a typed error for %s', async (_name, file, code) => {
    await expect(fetchFeatures({ url: `${upstream.url}/${file}` })).rejects.toMatchObject({ code });
  });

  it.each([
    ['no url', {}],
    ['a relative url', { url: 'districts.geojson' }],
    ['a file url', { url: 'file:///etc/passwd' }],
    ['an unknown format', { url: 'http://x/a', format: 'shapefile' }],
  ])('refuses %s as InvalidParameters', async (_name, parameters) => {
    await expect(urlFeatureProvider.fetch(request(parameters))).rejects.toMatchObject({ code: 'InvalidParameters' });
  });
});
