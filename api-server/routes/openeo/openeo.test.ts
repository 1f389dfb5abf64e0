import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMPLEMENTED_PROCESSES } from '../../../core/processing/index.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { build } from '../../test/build.ts';
import { publishedDataset } from '../../test/published-dataset.ts';
import { zodBytes } from '../../test/zod-bytes.ts';
import { collectionListSchema } from './index.ts';
import { sharedDir } from '../../../test/support/shared-dir.ts';

/** The official process descriptions, in the shared material (CI checks out shared/ beside the clone). */
const OFFICIAL_PROCESSES = join(sharedDir(), 'openeo-processes');

describe('openEO discovery', () => {
  it('declares the same conformance classes at /conformance as in the capabilities', async () => {
    const { app } = await build();
    const capabilities = (await app.inject({ url: '/' })).json();
    expect((await app.inject({ url: '/conformance' })).json()).toEqual({ conformsTo: capabilities.conformsTo });
    expect(capabilities.conformsTo).toContain('https://api.openeo.org/1.2.0');
  });

  it('presents an anonymous backend: no OIDC providers, no services, an anonymous account without limits', async () => {
    const { app } = await build();
    expect((await app.inject({ url: '/credentials/oidc' })).json()).toEqual({ providers: [] });
    expect((await app.inject({ url: '/service_types' })).json()).toEqual({});
    expect((await app.inject({ url: '/me' })).json()).toMatchObject({
      user_id: 'anonymous',
      budget: null,
      storage: null,
    });
  });

  it('lists as input formats only what the providers read, and as output what save_result writes', async () => {
    const { app } = await build();
    const formats = (await app.inject({ url: '/file_formats' })).json();
    expect(Object.keys(formats.input)).toEqual(['GTiff', 'Zarr']);
    expect(Object.keys(formats.output)).toEqual([
      'JSON',
      'GTiff',
      'netCDF',
      'Zarr',
      'PNG',
      'GeoJSON',
      'CSV',
      'Parquet',
      'dhis2-json',
      'chap-csv',
    ]);
    expect(formats.output['chap-csv'].parameters).toMatchObject({
      period_type: { schema: { enum: ['daily', 'weekly', 'monthly'] }, optional: true },
      continuity: { schema: { enum: ['error', 'warn', 'ignore'] }, default: 'error' },
    });
    expect(formats.output.GTiff).toMatchObject({ gis_data_types: ['raster'], parameters: {} });
    expect(formats.output.JSON).toMatchObject({
      gis_data_types: ['raster', 'vector', 'table', 'other'],
      parameters: {},
    });
    expect(formats.input.GTiff).toMatchObject({ gis_data_types: ['raster'], parameters: {} });
  });

  it('lists published collections with summaries, and describes one with openEO links', async () => {
    const built = await build();
    await publishedDataset(built, 'chirps-daily');
    const listed = await built.app.inject({ url: '/collections', headers: { host: 'api.test' } });
    // Compiled serializer: the bytes the zod serializer writes.
    expect(listed.body).toBe(zodBytes(collectionListSchema, listed.body));
    const list = listed.json();
    expect(list.collections.map((c: { id: string }) => c.id)).toEqual(['chirps-daily']);
    expect(list.collections[0].summaries).toMatchObject({ variables: ['precip'], period_type: ['daily'] });
    expect(list.links).toContainEqual(expect.objectContaining({ rel: 'self', href: 'http://api.test/collections' }));
    const one = (await built.app.inject({ url: '/collections/chirps-daily', headers: { host: 'api.test' } })).json();
    expect(one.links).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rel: 'self', href: 'http://api.test/collections/chirps-daily' }),
        expect.objectContaining({ rel: 'root', href: 'http://api.test/' }),
        expect.objectContaining({ rel: 'parent', href: 'http://api.test/collections' }),
      ]),
    );
    expect(one['cube:dimensions']).toHaveProperty('t');
  });

  it('describes a collection with its retained versions, newest first, and the Version extension links', async () => {
    const built = await build();
    const coverage = await publishedDataset(built, 'chirps-daily');
    const v2 = {
      id: 'v2',
      createdAt: '2024-01-05T00:00:00Z',
      format: 'zarr',
      coverage,
      path: 'datasets/x/versions/v2',
    };
    const v1 = {
      id: 'v1',
      createdAt: '2024-01-04T00:00:00Z',
      format: 'zarr',
      coverage,
      path: 'datasets/x/versions/v1',
    };
    await built.cluster.patchStatus(
      datasetKind,
      'chirps-daily',
      { type: 'merge', body: { status: { currentVersion: 'v2', versions: [v1, v2] } } },
      'default',
    );
    const one = (await built.app.inject({ url: '/collections/chirps-daily', headers: { host: 'api.test' } })).json();
    expect(one.version).toBe('v2');
    expect(one.summaries.version).toEqual(['v2', 'v1']);
    expect(one.links).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rel: 'latest-version', href: 'http://api.test/collections/chirps-daily' }),
        expect.objectContaining({ rel: 'predecessor-version', href: 'http://api.test/zarr/chirps-daily@v1/' }),
        expect.objectContaining({ rel: 'version-history', href: 'http://api.test/datasets/chirps-daily' }),
      ]),
    );
  });

  it('answers an unknown collection with 404 CollectionNotFound in the openEO error body', async () => {
    const { app } = await build();
    const response = await app.inject({ url: '/collections/no-such' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      id: 'CollectionNotFound',
      code: 'CollectionNotFound',
      message: "Collection 'no-such' does not exist.",
      links: [],
    });
    const unnamable = await app.inject({ url: '/collections/..%2FNot_A_Name' });
    expect(unnamable.statusCode).toBe(404);
    expect(unnamable.json()).toMatchObject({ code: 'CollectionNotFound' });
  });

  it("serves the engine's processes by default, and 404 ProcessNotFound for any other id", async () => {
    const { app } = await build();
    const listed = (await app.inject({ url: '/processes' })).json().processes.map((p: { id: string }) => p.id);
    expect(listed).toEqual(IMPLEMENTED_PROCESSES);
    expect(listed).toEqual(
      expect.arrayContaining([
        'add',
        'aggregate_spatial',
        'load_collection',
        'load_features',
        'etccdi_cdd',
        'etccdi_tx90p',
      ]),
    );
    const official = JSON.parse(await readFile(resolve(OFFICIAL_PROCESSES, 'add.json'), 'utf8'));
    expect((await app.inject({ url: '/processes/add' })).json()).toEqual(official);
    const response = await app.inject({ url: '/processes/load_stac' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({
      code: 'ProcessNotFound',
      message: "Process 'load_stac' is not implemented here.",
    });
  });

  it('serves the official description of each implemented process, and only those', async () => {
    const { app } = await build(undefined, {
      processes: { implemented: ['add'], descriptionsDir: OFFICIAL_PROCESSES },
    });
    const official = JSON.parse(await readFile(resolve(OFFICIAL_PROCESSES, 'add.json'), 'utf8'));
    expect((await app.inject({ url: '/processes' })).json().processes).toEqual([official]);
    expect((await app.inject({ url: '/processes/add' })).json()).toEqual(official);
    expect((await app.inject({ url: '/processes/subtract' })).statusCode).toBe(404);
  });

  it('answers OPTIONS on every route with 204 and the CORS headers openEO clients read', async () => {
    const { app } = await build();
    for (const url of ['/collections', '/collections/anything', '/processes', '/me', '/stac/catalog.json']) {
      const response = await app.inject({ method: 'OPTIONS', url, headers: { origin: 'https://editor.openeo.org' } });
      expect(response.statusCode, url).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe('https://editor.openeo.org');
    }
    const get = await app.inject({ url: '/collections', headers: { origin: 'https://editor.openeo.org' } });
    expect(String(get.headers['access-control-expose-headers']).split(/,\s*/)).toEqual(
      expect.arrayContaining(['Location', 'OpenEO-Identifier', 'OpenEO-Costs', 'Link']),
    );
  });

  it('renders the collection list, a collection and the process list as HTML linking to the JSON', async () => {
    const built = await build();
    await publishedDataset(built, 'chirps-daily');
    const list = (await built.app.inject({ url: '/collections', headers: { accept: 'text/html' } })).body;
    expect(list).toContain('href="/collections/chirps-daily"');
    const page = (await built.app.inject({ url: '/collections/chirps-daily?f=html' })).body;
    expect(page).toContain('href="/stac/collections/chirps-daily"');
    expect(page).toContain('href="/collections/chirps-daily?f=json"');
    const processes = (await built.app.inject({ url: '/processes?f=html' })).body;
    expect(processes).toContain('href="/processes/aggregate_spatial"');
    expect(processes).toContain('href="/processes/load_features"');
  });
});
