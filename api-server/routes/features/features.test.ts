import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { writeGeoParquet } from '../../../core/features/geoparquet.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { featureCollectionKind } from '../../../core/resources/feature-collection/schema.ts';
import { ingestionKind } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { build, type Built } from '../../test/build.ts';
import { zodBytes } from '../../test/zod-bytes.ts';
import { featureCollectionListResponseSchema } from './schemas.ts';

const template = (name: string, provider: string, itemType: 'feature' | 'coverage' = 'feature') => ({
  apiVersion: API_VERSION,
  kind: 'DataSource',
  metadata: { name, namespace: 'default' },
  spec: { datasetName: 'Districts', itemType, idProperty: 'code', license: 'CC-BY-4.0', provider: { name: provider } },
});

const stored = {
  featureCount: 2,
  geometryTypes: ['Polygon'],
  primaryGeometry: 'geometry',
  crs: 'EPSG:4326',
  extent: {
    spatial: { xmin: -13, ymin: 8, xmax: -11, ymax: 9 },
    spatialWgs84: null,
    temporal: { start: null, end: null },
  },
  lastUpdated: '2026-11-22T10:00:00Z',
  path: 'features/districts/v1.parquet',
};

/** A registered collection with a real stored file, as a finished refresh leaves it. */
async function storeCollection(
  { cluster, storageRoot }: Built,
  { published = true, version }: { published?: boolean; version?: { authority: string; value: string } } = {},
) {
  await cluster.create(featureCollectionKind, {
    apiVersion: API_VERSION,
    kind: 'FeatureCollection',
    metadata: { name: 'districts', namespace: 'default' },
    spec: { name: 'Districts', source: 'districts', idProperty: 'code', attribution: 'Survey office' },
  });
  await writeGeoParquet(join(storageRoot, stored.path), [
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
      properties: { code: 'A' },
    },
    {
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [-12, 8],
            [-11, 8],
            [-11, 9],
            [-12, 8],
          ],
        ],
      },
      properties: { code: 'B' },
    },
  ]);
  await cluster.patchStatus(
    featureCollectionKind,
    'districts',
    {
      type: 'merge',
      body: {
        status: {
          ...stored,
          ...(version && { version }),
          ...(published && { publication: { status: 'published', publishedAt: '2026-11-22T10:00:00Z' } }),
        },
      },
    },
    'default',
  );
}

describe('feature collection records', () => {
  it('lists only registered collections with a stored file, never a file placed by hand', async () => {
    const built = await build();
    const { app, cluster, storageRoot } = built;
    await mkdir(join(storageRoot, 'features', 'stray'), { recursive: true });
    await writeFile(join(storageRoot, 'features', 'stray', 'v1.parquet'), 'PAR1');
    await cluster.create(featureCollectionKind, {
      apiVersion: API_VERSION,
      kind: 'FeatureCollection',
      metadata: { name: 'never-refreshed', namespace: 'default' },
      spec: { name: 'Never refreshed', idProperty: 'code' },
    });
    expect((await app.inject({ url: '/features' })).json()).toEqual({
      kind: 'FeatureCollectionList',
      items: [],
      links: [],
    });
    await storeCollection(built);
    const response = await app.inject({ url: '/features' });
    // Compiled serializer: the bytes the zod serializer writes.
    expect(response.body).toBe(zodBytes(featureCollectionListResponseSchema, response.body));
    const list = response.json();
    expect(list.items.map((r: { id: string }) => r.id)).toEqual(['districts']);
    expect((await app.inject({ url: '/features/stray' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/features/never-refreshed' })).statusCode).toBe(404);
  });

  it('answers a FeatureCollectionRecord with license defaulting to other and version null', async () => {
    const built = await build();
    await storeCollection(built);
    const response = await built.app.inject({ url: '/features/districts' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: 'districts',
      name: 'Districts',
      description: null,
      license: 'other',
      license_url: null,
      attribution: 'Survey office',
      id_property: 'code',
      feature_count: 2,
      geometry_types: ['Polygon'],
      primary_geometry: 'geometry',
      crs: 'EPSG:4326',
      version: null,
      extent: {
        spatial: { xmin: -13, ymin: 8, xmax: -11, ymax: 9 },
        spatial_wgs84: null,
        temporal: { start: null, end: null },
      },
      last_updated: '2026-11-22T10:00:00Z',
    });
  });

  it('returns a release version verbatim', async () => {
    const built = await build();
    await storeCollection(built, { version: { authority: 'gadm.org', value: '4.1 (2022-07-16)' } });
    expect((await built.app.inject({ url: '/features/districts' })).json().version).toEqual({
      authority: 'gadm.org',
      value: '4.1 (2022-07-16)',
    });
  });

  it('answers 404 for an unknown collection and 422 for an id that is no valid name', async () => {
    const { app } = await build();
    expect((await app.inject({ url: '/features/nope' })).json()).toEqual({
      detail: 'Feature collection nope not found',
    });
    expect((await app.inject({ url: '/features/..%2Fsecrets' })).statusCode).toBe(422);
  });
});

describe('GET /features/{id}/data.parquet', () => {
  it('serves the published file with ETag, conditional requests and byte ranges', async () => {
    const built = await build();
    await storeCollection(built);
    const whole = await built.app.inject({ url: '/features/districts/data.parquet' });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('application/vnd.apache.parquet');
    const rows = await parquetReadObjects({ file: new Uint8Array(whole.rawPayload).buffer });
    expect(rows.map((r) => r.code)).toEqual(['A', 'B']);
    const etag = whole.headers.etag as string;
    expect(etag).toMatch(/^"v1-/);
    const again = await built.app.inject({
      url: '/features/districts/data.parquet',
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    const tail = await built.app.inject({ url: '/features/districts/data.parquet', headers: { range: 'bytes=-8' } });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.subarray(4).toString()).toBe('PAR1');
    expect(tail.headers['content-range']).toBe(
      `bytes ${whole.rawPayload.length - 8}-${whole.rawPayload.length - 1}/${whole.rawPayload.length}`,
    );
    const past = await built.app.inject({
      url: '/features/districts/data.parquet',
      headers: { range: 'bytes=99999999-' },
    });
    expect(past.statusCode).toBe(416);
  });

  it('answers 404 for a collection that is stored but not published', async () => {
    const built = await build();
    await storeCollection(built, { published: false });
    const response = await built.app.inject({ url: '/features/districts/data.parquet' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: 'Feature collection districts is not published' });
  });
});

describe('GET /features/{id}/data.geojson', () => {
  it('answers the stored features as GeoJSON with their id property as id, an ETag, and 304 for it', async () => {
    const built = await build();
    await storeCollection(built);
    const response = await built.app.inject({ url: '/features/districts/data.geojson' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/geo\+json/);
    const document = response.json() as { type: string; features: { id: unknown; geometry: { type: string } }[] };
    expect(document.type).toBe('FeatureCollection');
    expect(document.features.map((f) => [f.id, f.geometry.type])).toEqual([
      ['A', 'Polygon'],
      ['B', 'Polygon'],
    ]);
    expect(document.features[0]).toMatchObject({ type: 'Feature', properties: { code: 'A' } });
    const etag = response.headers.etag as string;
    expect(etag).toBe('"v1-geojson"');
    const again = await built.app.inject({
      url: '/features/districts/data.geojson',
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
  });

  it('answers 404 for a collection that is stored but not published, or unknown', async () => {
    const built = await build();
    await storeCollection(built, { published: false });
    const hidden = await built.app.inject({ url: '/features/districts/data.geojson' });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual({ detail: 'Feature collection districts is not published' });
    expect((await built.app.inject({ url: '/features/nope/data.geojson' })).statusCode).toBe(404);
  });

  it('answers 404, not 500, when the stored file is gone', async () => {
    const built = await build();
    await storeCollection(built);
    await rm(join(built.storageRoot, stored.path));
    const response = await built.app.inject({ url: '/features/districts/data.geojson' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: 'Feature collection districts has no stored file' });
  });
});

describe('a feature collection page', () => {
  it('shows a published collection on the map viewer with its boundaries chosen, under the pages policy', async () => {
    const built = await build();
    await storeCollection(built);
    const page = await built.app.inject({ url: '/features/districts', headers: { accept: 'text/html' } });
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('<option value="districts" selected>Districts</option>');
    expect(page.body).toContain('id="map-viewer"');
    expect(page.body).toContain('href="/features/districts/data.geojson"');
    // The record stays the JSON representation.
    expect((await built.app.inject({ url: '/features/districts' })).json()).toMatchObject({ id: 'districts' });
  });

  it('has no map for an unpublished collection, whose boundaries are not served', async () => {
    const built = await build();
    await storeCollection(built, { published: false });
    const page = await built.app.inject({ url: '/features/districts?f=html' });
    expect(page.body).toContain('Not published');
    expect(page.body).not.toContain('id="map-viewer"');
  });
});

describe('feature templates among the data sources', () => {
  it('lists a template after the rasters with ingestable from the feature providers, and its page offers a refresh', async () => {
    const { app, cluster } = await build();
    await cluster.create(dataSourceKind, template('districts', 'sample'));
    await cluster.create(dataSourceKind, template('gadm', 'gadm'));
    await cluster.create(dataSourceKind, template('rain', 'chirps', 'coverage'));
    const sources = (await app.inject({ url: '/data-sources' })).json() as {
      dataset_id: string;
      ingestable: boolean;
    }[];
    expect(sources.map((s) => [s.dataset_id, s.ingestable])).toEqual([
      ['rain', true],
      ['districts', true],
      ['gadm', false],
    ]);
    const page = await app.inject({ url: '/data-sources/districts', headers: { accept: 'text/html' } });
    expect(page.body).toContain('action="/features/districts/refresh" data-run');
    expect(page.body).not.toContain('action="/ingestions"');
  });

  it('refuses an ingestion of a feature template with 400, naming the refresh route', async () => {
    const { app, cluster } = await build();
    await cluster.create(dataSourceKind, template('districts', 'sample'));
    const response = await app.inject({ method: 'POST', url: '/ingestions', payload: { dataset_id: 'districts' } });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(/refresh it with POST \/features\/districts\/refresh/);
  });
});

describe('POST /features/{id}/refresh refusals', () => {
  const runs = async ({ cluster }: Built) => (await cluster.list(ingestionKind, { namespace: 'default' })).items;

  it('answers 404 for an unknown template and queues nothing', async () => {
    const built = await build();
    const response = await built.app.inject({ method: 'POST', url: '/features/nope/refresh' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: 'Feature collection template nope not found' });
    expect(await runs(built)).toEqual([]);
  });

  it('answers 404 for a raster data source: it is no feature template', async () => {
    const built = await build();
    await built.cluster.create(dataSourceKind, template('sample', 'sample', 'coverage'));
    expect((await built.app.inject({ method: 'POST', url: '/features/sample/refresh' })).statusCode).toBe(404);
    expect(await runs(built)).toEqual([]);
  });

  it('answers 400 for a template naming a provider this instance lacks, and queues nothing', async () => {
    const built = await build();
    await built.cluster.create(dataSourceKind, template('districts', 'gadm'));
    const response = await built.app.inject({ method: 'POST', url: '/features/districts/refresh' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      detail: 'Feature collection template districts needs provider gadm, which this instance does not have',
    });
    expect(await runs(built)).toEqual([]);
  });

  it('answers 400 for a template that declares no idProperty, and queues nothing', async () => {
    const built = await build();
    const { idProperty: _omitted, ...spec } = template('districts', 'sample').spec;
    await built.cluster.create(dataSourceKind, { ...template('districts', 'sample'), spec });
    const response = await built.app.inject({ method: 'POST', url: '/features/districts/refresh' });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(/declares no idProperty/);
    expect(await runs(built)).toEqual([]);
  });

  it('answers 422 for a publish flag that is not a boolean', async () => {
    const built = await build();
    await built.cluster.create(dataSourceKind, template('districts', 'sample'));
    const response = await built.app.inject({ method: 'POST', url: '/features/districts/refresh?publish=maybe' });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0].loc).toEqual(['query', 'publish']);
  });

  it('queues a feature refresh run with Prefer: respond-async, and refuses a second writer with 409', async () => {
    const built = await build();
    await built.cluster.create(dataSourceKind, template('districts', 'sample'));
    const accepted = await built.app.inject({
      method: 'POST',
      url: '/features/districts/refresh?publish=false',
      headers: { prefer: 'respond-async' },
    });
    expect(accepted.statusCode).toBe(202);
    const location = accepted.headers.location as string;
    expect(location).toMatch(/^\/ingestions\/jobs\/districts-[0-9a-f]{8}$/);
    expect(accepted.json()).toMatchObject({ processID: 'feature refresh', status: 'accepted', maxAttempts: 1 });
    const [run] = await runs(built);
    expect(run!.spec).toMatchObject({
      source: 'districts',
      datasetId: 'districts',
      mode: 'feature-refresh',
      publish: false,
    });
    expect((await built.app.inject({ url: location })).json()).toMatchObject({ processID: 'feature refresh' });
    const second = await built.app.inject({
      method: 'POST',
      url: '/features/districts/refresh',
      headers: { prefer: 'respond-async' },
    });
    expect(second.statusCode).toBe(409);
  });

  it('is refused on a read-only instance', async () => {
    const built = await build('instance.name = Test\ninstance.bbox = -13.5,6.9,-10.2,10.0\nread_only = on');
    await built.cluster.create(dataSourceKind, template('districts', 'sample'));
    expect((await built.app.inject({ method: 'POST', url: '/features/districts/refresh' })).statusCode).toBe(403);
  });
});
