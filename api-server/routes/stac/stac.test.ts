import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { gridCovering } from '../../../core/stores/raster-grid.ts';
import { sharedDir } from '../../../test/support/shared-dir.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { build } from '../../test/build.ts';
import { publishedDataset } from '../../test/published-dataset.ts';

describe('STAC catalogue', () => {
  it('lists one child per published dataset, with absolute links from the forwarded proxy headers', async () => {
    const built = await build();
    await publishedDataset(built, 'chirps-daily');
    await built.cluster.create(datasetKind, {
      apiVersion: API_VERSION,
      kind: 'Dataset',
      metadata: { name: 'not-yet', namespace: 'default' },
      spec: { source: 'sample', datasetName: 'Unpublished' },
    });
    const response = await built.app.inject({
      url: '/stac/catalog.json',
      headers: {
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'climate.example.org',
        'x-forwarded-prefix': '/api',
      },
    });
    expect(response.statusCode).toBe(200);
    const catalog = response.json();
    expect(catalog).toMatchObject({ type: 'Catalog', stac_version: '1.1.0', id: 'stratus' });
    expect(catalog.links.map((l: { rel: string; href: string }) => [l.rel, l.href])).toEqual([
      ['self', 'https://climate.example.org/api/stac/catalog.json'],
      ['root', 'https://climate.example.org/api/stac/catalog.json'],
      ['child', 'https://climate.example.org/api/stac/collections/chirps-daily'],
    ]);
    expect((await built.app.inject({ url: '/stac' })).json()).toMatchObject({ id: 'stratus', type: 'Catalog' });
  });

  it('lists a collection published after the catalogue was first read, and none after it is gone', async () => {
    const built = await build();
    const children = async () =>
      ((await built.app.inject({ url: '/stac' })).json().links as { rel: string; title?: string }[])
        .filter((l) => l.rel === 'child')
        .map((l) => l.title);
    expect(await children()).toEqual([]);
    await publishedDataset(built, 'chirps-daily');
    expect(await children()).toHaveLength(1);
    await built.cluster.delete(datasetKind, 'chirps-daily', 'default');
    expect(await children()).toEqual([]);
  });

  it('describes a raster dataset as a data cube with its Zarr store, grid step and thumbnail', async () => {
    const built = await build(
      'instance.name = Test\ninstance.bbox = -13.5,6.9,-10.2,10.0\nserver.base.url = https://c.example/',
    );
    const coverage = await publishedDataset(built, 'chirps-daily', { thumbnail: true });
    const collection = (await built.app.inject({ url: '/stac/collections/chirps-daily' })).json();
    const { xmin, ymin, xmax, ymax } = coverage.spatial;
    expect(collection).toMatchObject({
      type: 'Collection',
      id: 'chirps-daily',
      license: 'CC-BY-4.0',
      extent: {
        spatial: { bbox: [[xmin, ymin, xmax, ymax]] },
        temporal: { interval: [['2024-01-01T00:00:00.000Z', '2024-01-03T00:00:00.000Z']] },
      },
      'cube:dimensions': {
        x: { type: 'spatial', axis: 'x', extent: [xmin, xmax], step: 0.5, reference_system: 4326 },
        y: { type: 'spatial', axis: 'y', extent: [ymin, ymax], step: 0.5, reference_system: 4326 },
        t: { type: 'temporal', extent: ['2024-01-01T00:00:00.000Z', '2024-01-03T00:00:00.000Z'], step: 'P1D' },
      },
      'cube:variables': { precip: { dimensions: ['t', 'y', 'x'], type: 'data', unit: 'mm' } },
      providers: [
        {
          name: 'Climate Hazards Center',
          roles: ['producer', 'licensor'],
          url: 'https://www.chc.ucsb.edu/data/chirps3',
        },
        { name: 'Test', roles: ['host', 'processor'], url: 'https://c.example' },
      ],
      assets: {
        data: {
          href: 'https://c.example/zarr/chirps-daily/',
          type: 'application/vnd+zarr; version=2',
          roles: ['data'],
        },
        thumbnail: { href: 'https://c.example/datasets/chirps-daily/thumbnail.png', type: 'image/png' },
      },
    });
    expect(collection.assets.data.description).toMatch(/chunks \[3,7,7\]/);
    expect(collection.links).toContainEqual(
      expect.objectContaining({ rel: 'self', href: 'https://c.example/stac/collections/chirps-daily' }),
    );
    expect(collection.links).toContainEqual(
      expect.objectContaining({ rel: 'license', href: 'https://example.org/license' }),
    );
  });

  it('gives the Zarr asset of a store with multiscale levels the multiscales profile, valid for the Zarr extension', async () => {
    const built = await build();
    // 2048 × 2048 cells: levels 1 to 3.
    const grid = gridCovering([0, 0, 20.48, 20.48], 0.01);
    await publishedDataset(built, 'fine', { grid, plane: (i) => new Float32Array(2048 * 2048).fill(i) });
    await publishedDataset(built, 'coarse');
    const collectionOf = async (id: string) =>
      (await built.app.inject({ url: `/stac/collections/${id}` })).json() as {
        stac_extensions: string[];
        assets: Record<string, { type: string; description: string }>;
      };
    const [fine, coarse] = [await collectionOf('fine'), await collectionOf('coarse')];
    expect(fine.assets.data!.type).toBe('application/vnd+zarr; version=2; profile=multiscales');
    expect(fine.assets.data!.description).toMatch(/levels 1 to 3/);
    expect(coarse.assets.data!.type).toBe('application/vnd+zarr; version=2');

    // The published Zarr extension schema: the collection, and each asset's Zarr fields.
    const schema = JSON.parse(
      await readFile(join(sharedDir(), 'stac-schemas/extensions/zarr-v1.1.0.json'), 'utf8'),
    ) as { $id: string };
    const ajv = new Ajv({ strict: false });
    ajv.addSchema(schema);
    const id = schema.$id.replace(/#$/, '');
    expect(fine.stac_extensions).toContain(id);
    const collection = ajv.getSchema(id)!;
    expect(collection(fine), ajv.errorsText(collection.errors)).toBe(true);
    const fields = ajv.getSchema(`${id}#/definitions/fields`)!;
    expect(fields(fine.assets.data), ajv.errorsText(fields.errors)).toBe(true);
  });

  it('advertises no thumbnail while the file is missing, and says other with a license link for a non-SPDX license', async () => {
    const built = await build();
    await publishedDataset(built, 'custom', { license: 'Terms of the agency' });
    const collection = (await built.app.inject({ url: '/stac/collections/custom' })).json();
    expect(Object.keys(collection.assets)).toEqual(['data']);
    expect(collection.license).toBe('other');
    expect(collection.links).toContainEqual({
      href: 'https://example.org/license',
      rel: 'license',
      title: 'Terms of the agency',
    });
  });

  it('answers 404 for an unknown or unpublished dataset', async () => {
    const built = await build();
    await built.cluster.create(datasetKind, {
      apiVersion: API_VERSION,
      kind: 'Dataset',
      metadata: { name: 'not-yet', namespace: 'default' },
      spec: { source: 'sample', datasetName: 'Unpublished' },
    });
    for (const id of ['nope', 'not-yet']) {
      const response = await built.app.inject({ url: `/stac/collections/${id}` });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ detail: `No published collection ${id}` });
    }
  });
});
