import { describe, expect, it } from 'vitest';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { build } from '../../test/build.ts';
import { datasetListResponseSchema } from './schemas.ts';

const dataset = (name: string, status?: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'Dataset',
  metadata: { name, namespace: 'default' },
  spec: {
    source: 'chirps-v3-daily',
    datasetName: 'CHIRPS daily <precipitation>',
    itemType: 'coverage',
    variable: 'precip',
    periodType: 'daily',
    units: 'mm',
    license: 'CC-BY-4.0',
    format: 'zarr',
    publish: true,
  },
  ...(status ? { status } : {}),
});

const coverage = (start: string, end: string) => ({
  spatial: { xmin: -13.5, ymin: 6.9, xmax: -10.2, ymax: 10 },
  temporal: { start, end },
});

describe('dataset routes', () => {
  it('lists datasets as DatasetRecords, unmaterialized ones with the instance extent', async () => {
    const { app, cluster } = await build();
    expect((await app.inject({ url: '/datasets' })).json()).toEqual({ kind: 'DatasetList', items: [], links: [] });
    await cluster.create(datasetKind, dataset('chirps-daily'));
    const body = (await app.inject({ url: '/datasets' })).json();
    // Written from each record's bytes, not through the route's serializer: the schema must still hold.
    expect(datasetListResponseSchema.strict().parse(body)).toEqual(body);
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({
      dataset_id: 'chirps-daily',
      source_dataset_id: 'chirps-v3-daily',
      itemType: 'coverage',
      period_type: 'daily',
      license: 'CC-BY-4.0',
      short_name: null,
      license_url: null,
      extent: {
        spatial: { xmin: -13.5, ymin: 6.9, xmax: -10.2, ymax: 10 },
        spatial_wgs84: null,
        temporal: { start: null, end: null },
      },
      publication: { status: 'unpublished', published_at: null },
      links: expect.arrayContaining([{ href: '/zarr/chirps-daily/', rel: 'zarr', title: 'Zarr store' }]),
    });
  });

  it('answers a page asked again with the same bytes until the list changes, with the links of each public URL', async () => {
    const { app, cluster } = await build();
    for (const name of ['a-one', 'b-two', 'c-three']) await cluster.create(datasetKind, dataset(name));
    const page = (host: string, url = '/datasets?limit=2') => app.inject({ url, headers: { host } });
    const first = await page('one.test');
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.json().items.map((r: { dataset_id: string }) => r.dataset_id)).toEqual(['a-one', 'b-two']);
    expect((await page('one.test')).body).toBe(first.body);
    // The links name the public URL of each request: another host is another page.
    const other = await page('two.test');
    expect(other.json().links[0].href).toMatch(/^http:\/\/two\.test\/datasets\?limit=2&token=/);
    expect(other.body).toBe(first.body.replaceAll('one.test', 'two.test'));

    await cluster.delete(datasetKind, 'a-one', 'default');
    const changed = (await page('one.test')).json();
    expect(changed.items.map((r: { dataset_id: string }) => r.dataset_id)).toEqual(['b-two', 'c-three']);
    expect(changed.links).toEqual([]);
    // A bad token is still refused, however often it is asked.
    for (let i = 0; i < 2; i++) expect((await page('one.test', '/datasets?limit=2&token=nope')).statusCode).toBe(422);
  });

  it('answers one dataset with its versions newest first', async () => {
    const { app, cluster } = await build();
    await cluster.create(datasetKind, dataset('chirps-daily'));
    await cluster.patchStatus(
      datasetKind,
      'chirps-daily',
      {
        type: 'merge',
        body: {
          status: {
            extent: coverage('2024-01-01', '2024-02-29'),
            lastUpdated: '2024-03-01T00:00:00Z',
            publication: { status: 'published', publishedAt: '2024-03-01T00:00:00Z' },
            versions: [
              {
                id: 'v1',
                createdAt: '2024-02-01T00:00:00Z',
                format: 'zarr',
                coverage: coverage('2024-01-01', '2024-01-31'),
                path: 'a',
              },
              {
                id: 'v2',
                createdAt: '2024-03-01T00:00:00Z',
                format: 'zarr',
                coverage: coverage('2024-01-01', '2024-02-29'),
                requestScope: { start: '2024-02-01', end: '2024-02-29', bbox: null },
                path: 'b',
              },
            ],
          },
        },
      },
      'default',
    );
    const body = (await app.inject({ url: '/datasets/chirps-daily' })).json();
    expect(body.versions.map((v: { created_at: string }) => v.created_at)).toEqual([
      '2024-03-01T00:00:00Z',
      '2024-02-01T00:00:00Z',
    ]);
    expect(body.versions[0].request_scope).toEqual({ start: '2024-02-01', end: '2024-02-29', bbox: null });
    expect(body.versions[1].request_scope).toBeNull();
    expect(body).toMatchObject({ last_updated: '2024-03-01T00:00:00Z', publication: { status: 'published' } });
  });

  it('answers 404 with a detail for an unknown dataset, and 422 for an invalid id', async () => {
    const { app } = await build();
    const missing = await app.inject({ url: '/datasets/nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: 'Dataset nope not found' });
    const invalid = await app.inject({ url: '/datasets/Bad..Id' });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json()).toEqual({
      detail: [
        { loc: ['path', 'dataset_id'], msg: expect.stringMatching(/lower-case letters/), type: 'invalid_format' },
      ],
    });
  });

  it('renders list and detail pages with escaped values', async () => {
    const { app, cluster } = await build();
    await cluster.create(datasetKind, dataset('chirps-daily'));
    const list = await app.inject({ url: '/datasets?f=html' });
    expect(list.headers['content-type']).toMatch(/text\/html/);
    expect(list.body).toContain('CHIRPS daily &lt;precipitation&gt;');
    expect(list.body).toContain('href="/datasets/chirps-daily"');
    const detail = await app.inject({ url: '/datasets/chirps-daily', headers: { accept: 'text/html' } });
    expect(detail.body).toContain('<h1>CHIRPS daily &lt;precipitation&gt;</h1>');
    expect(detail.body).toContain('Not materialized yet.');
  });
});
