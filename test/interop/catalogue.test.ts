/**
 * The catalogue as real clients see it, in embedded mode over HTTP: every STAC document validated offline by
 * stac-node-validator against the published schemas in ../shared/stac-schemas only (plus checks the schemas cannot
 * express),
 * the openEO JavaScript client connecting, listing and describing, and the HTML pages in headless Chromium.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenEO } from '@openeo/js-client';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as zarr from 'zarrita';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { IMPLEMENTED_PROCESSES } from '../../core/processing/index.ts';
import { sampleDatasetManifest, startEmbedded } from '../support/embedded.ts';
import { python } from '../support/python.ts';
import { sharedDir } from '../support/shared-dir.ts';
import { launchChromium } from '../support/chromium.ts';
import { eventually } from '../support/eventually.ts';

/** The published STAC core and extension schemas of the shared material, unchanged upstream files. */
const STAC_SCHEMAS = join(sharedDir(), 'stac-schemas');
const ZARR_V1_0 = 'https://stac-extensions.github.io/zarr/v1.0.0/schema.json';
const ZARR_V1_1 = 'https://stac-extensions.github.io/zarr/v1.1.0/schema.json';
const VERSION_V1_2 = 'https://stac-extensions.github.io/version/v1.2.0/schema.json';

interface StacValidationReport {
  valid: boolean;
  results: { core: unknown[]; extensions: Record<string, unknown[]> };
}
const validateStac = createRequire(import.meta.url)('stac-node-validator') as (
  data: unknown,
  config: Record<string, unknown>,
) => Promise<StacValidationReport>;

/**
 * Schemas come from disk only: a schema that is not there fails the validation instead of being downloaded. The
 * GeoJSON schemas are the one exception: the core schemas reach them only through the Item definition in
 * `item.json` (compiled whole because catalogs and collections borrow its `links` and `assets`), and no Item is
 * validated here, so an empty schema stands in for them; the test checks that no document is an Item.
 */
const GEOJSON_SCHEMAS = 'https://geojson.org/schema/';
const offlineLoader = async (uri: string) =>
  uri.startsWith(GEOJSON_SCHEMAS)
    ? { $schema: 'http://json-schema.org/draft-07/schema#', $id: uri }
    : (JSON.parse(await readFile(uri, 'utf8')) as unknown);
const validatorConfig = {
  loader: offlineLoader,
  schemas: join(STAC_SCHEMAS, 'v1.1.0'),
  schemaMap: {
    'https://stac-extensions.github.io/datacube/v2.3.0/schema.json': join(STAC_SCHEMAS, 'extensions/datacube.json'),
    'https://stac-extensions.github.io/table/v1.2.0/schema.json': join(STAC_SCHEMAS, 'extensions/table.json'),
    'https://proj.org/schemas/v0.7/projjson.schema.json': join(STAC_SCHEMAS, 'extensions/projjson-stub.json'),
    'https://stac-extensions.github.io/projection/v2.0.0/schema.json': join(
      STAC_SCHEMAS,
      'extensions/projection-v2.0.0.json',
    ),
    [ZARR_V1_0]: join(STAC_SCHEMAS, 'extensions/zarr-v1.0.0.json'),
    [VERSION_V1_2]: join(STAC_SCHEMAS, 'extensions/version-v1.2.0.json'),
    [ZARR_V1_1]: join(STAC_SCHEMAS, 'extensions/zarr-v1.1.0.json'),
  },
};

/**
 * What the published Zarr v1.1.0 schema cannot say of a collection (it only asks that some asset be valid): every
 * asset's Zarr fields valid against the schema's own field definitions, and no Zarr field outside the assets.
 */
async function zarrFieldErrors(collection: Record<string, unknown>): Promise<string[]> {
  const ajv = new Ajv({ strict: false });
  ajv.addSchema(JSON.parse(await readFile(join(STAC_SCHEMAS, 'extensions/zarr-v1.1.0.json'), 'utf8')) as object);
  const fields = ajv.getSchema(`${ZARR_V1_1}#/definitions/fields`)!;
  const errors = Object.keys(collection)
    .filter((key) => key.startsWith('zarr:'))
    .map((key) => `${key} outside the assets`);
  for (const [name, asset] of Object.entries((collection.assets ?? {}) as Record<string, unknown>))
    if (!fields(asset)) errors.push(`asset ${name}: ${ajv.errorsText(fields.errors)}`);
  return errors;
}

let running: RunningEmbedded;
let dataDir: string;
let url: string;

const getJson = async (path: string) => {
  const response = await fetch(path.startsWith('http') ? path : `${url}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as Record<string, unknown>;
};

const jobStatus = async (id: string) =>
  ((await (await fetch(`${url}/ingestions/jobs/${id}`)).json()) as { status: string }).status;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stratus-catalogue-'));
  const manifests: Record<string, string> = {};
  manifests['icechunk.yaml'] = sampleDatasetManifest({
    name: 'sample-ic',
    title: 'Sample as Icechunk',
    format: 'icechunk',
    run: 'sample-ic-january',
    start: '2024-01-01',
    end: '2024-01-31',
  });
  manifests['netcdf.yaml'] = sampleDatasetManifest({
    name: 'sample-nc',
    title: 'Sample as NetCDF',
    format: 'netcdf',
    run: 'sample-nc-january',
    start: '2024-01-01',
    end: '2024-01-10',
  });
  running = await startEmbedded(dataDir, { manifests });
  url = running.url;
  for (const id of ['sample-2024', 'sample-ic-january', 'sample-nc-january', 'sample-districts-initial'])
    await eventually(async () => ((await jobStatus(id)) === 'successful' ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
}, 90_000);

afterAll(async () => {
  await running?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** The catalogue and every collection it links to, fetched the way a STAC browser walks it. */
async function walkCatalogue() {
  const catalog = await getJson('/stac/catalog.json');
  const children = (catalog.links as { rel: string; href: string }[]).filter((l) => l.rel === 'child');
  const collections = await Promise.all(children.map((c) => getJson(c.href)));
  return { catalog, collections };
}

describe('the STAC catalogue', () => {
  it('has a child for each published dataset (Zarr, Icechunk, NetCDF) and feature collection', async () => {
    const { collections } = await walkCatalogue();
    expect(collections.map((c) => c.id)).toEqual(['sample', 'sample-districts', 'sample-ic', 'sample-nc']);
  });

  it('passes stac-node-validator offline: the catalog and every collection', async () => {
    const { catalog, collections } = await walkCatalogue();
    for (const document of [catalog, ...collections]) {
      expect(['Catalog', 'Collection']).toContain(document.type);
      const report = await validateStac(document, validatorConfig);
      expect(report.results, String(document.id)).toMatchObject({ core: [] });
      expect(Object.values(report.results.extensions).flat(), String(document.id)).toEqual([]);
      expect(report.valid, String(document.id)).toBe(true);
      expect(await zarrFieldErrors(document), String(document.id)).toEqual([]);
    }
    // The same validator refuses a collection that breaks each extension, so the passes above mean something.
    const sample = collections[0]!;
    const assets = sample.assets as Record<string, Record<string, unknown>>;
    const withData = (fields: Record<string, unknown>) => ({
      ...sample,
      assets: { data: { ...assets.data, ...fields } },
    });
    const brokenOnes: Record<string, unknown>[] = [
      { ...sample, 'cube:dimensions': { x: { type: 'spatial' } } },
      withData({ 'proj:shape': [7] }),
      withData({ 'proj:transform': [1, 0, 0] }),
      withData({ 'proj:epsg': 4326 }),
      withData({ 'zarr:node_type': 'tree' }),
      withData({ 'zarr:zarr_format': 4 }),
    ];
    for (const [i, broken] of brokenOnes.entries())
      expect((await validateStac(broken, validatorConfig)).valid, `broken collection ${i}`).toBe(false);
    // What the published Zarr schema lets pass in a collection (a valid thumbnail beside a broken store, a field
    // outside the assets), the field check refuses.
    const brokenBesideThumbnail = {
      ...sample,
      assets: { ...assets, data: { ...assets.data, 'zarr:node_type': 'tree' } },
    };
    expect((await validateStac(brokenBesideThumbnail, validatorConfig)).valid).toBe(true);
    expect(await zarrFieldErrors(brokenBesideThumbnail)).toEqual([expect.stringMatching(/^asset data: /)]);
    expect(await zarrFieldErrors({ ...sample, 'zarr:consolidated': true })).toEqual([
      'zarr:consolidated outside the assets',
    ]);
  });

  it('carries the Version extension: the served version, its links, and the extension schema checks them', async () => {
    const sample = await getJson('/stac/collections/sample');
    const dataset = (await getJson('/datasets/sample')) as { versions: { id: string; current: boolean }[] };
    const served = dataset.versions.find((v) => v.current)!.id;
    expect(sample.stac_extensions).toContain(VERSION_V1_2);
    expect(sample.version).toBe(served);
    const links = sample.links as { rel: string; href: string }[];
    expect(links.find((l) => l.rel === 'latest-version')?.href).toBe(`${url}/stac/collections/sample`);
    expect(links.find((l) => l.rel === 'version-history')?.href).toBe(`${url}/datasets/sample`);
    const report = await validateStac(sample, validatorConfig);
    expect(Object.keys(report.results.extensions)).toContain(VERSION_V1_2);
    // The published schema is what checks the fields: a version that is no string fails it.
    expect((await validateStac({ ...sample, version: 1 }, validatorConfig)).valid).toBe(false);
  });

  it('declares Zarr extension v1.1.0, because the published v1.0.0 schema refuses a store beside a thumbnail', async () => {
    const sample = await getJson('/stac/collections/sample');
    expect(Object.keys(sample.assets as object)).toEqual(['data', 'thumbnail']);
    expect(sample.stac_extensions).toContain(ZARR_V1_1);
    const asV1 = {
      ...sample,
      stac_extensions: (sample.stac_extensions as string[]).map((e) => (e === ZARR_V1_1 ? ZARR_V1_0 : e)),
    };
    const report = await validateStac(asV1, validatorConfig);
    expect(report.valid).toBe(false);
    expect(Object.keys(report.results.extensions)).toContain(ZARR_V1_0);
    const { thumbnail, ...storeOnly } = sample.assets as Record<string, unknown>;
    expect(thumbnail).toBeDefined();
    expect((await validateStac({ ...asV1, assets: storeOnly }, validatorConfig)).valid).toBe(true);
  });

  it('uses only declared extensions, and every variable lies on declared dimensions', async () => {
    const { collections } = await walkCatalogue();
    const prefixes: Record<string, string> = { cube: 'datacube', table: 'table', proj: 'projection', zarr: 'zarr' };
    for (const collection of collections) {
      const declared = collection.stac_extensions as string[];
      const fields = [
        ...Object.keys(collection),
        ...Object.keys(collection.summaries as object),
        ...Object.values(collection.assets as Record<string, object>).flatMap((a) => Object.keys(a)),
      ];
      for (const prefix of new Set(fields.filter((f) => f.includes(':')).map((f) => f.split(':')[0]!))) {
        expect(prefixes[prefix], `${collection.id}: fields ${prefix}:*`).toBeDefined();
        expect(
          declared.some((d) => d.includes(`/${prefixes[prefix]}/`)),
          `${collection.id}: ${prefix}`,
        ).toBe(true);
      }
      if (!collection['cube:variables']) continue;
      const dimensions = Object.keys(collection['cube:dimensions'] as object);
      for (const variable of Object.values(collection['cube:variables'] as Record<string, { dimensions: string[] }>))
        for (const d of variable.dimensions) expect(dimensions, `${collection.id}: dimension ${d}`).toContain(d);
    }
  });

  it('points every asset at something that answers 200 to GET and HEAD', async () => {
    const { collections } = await walkCatalogue();
    const hrefs = collections.flatMap((c) =>
      Object.values(c.assets as Record<string, { href: string }>).map((a) => a.href),
    );
    expect(hrefs).toContain(`${url}/zarr/sample/`);
    expect(hrefs).toContain(`${url}/icechunk/sample-ic/`);
    expect(hrefs).toContain(`${url}/datasets/sample/thumbnail.png`);
    expect(hrefs).toContain(`${url}/datasets/sample-nc/download`);
    expect(hrefs).toContain(`${url}/features/sample-districts/data.parquet`);
    for (const href of hrefs) {
      const got = await fetch(href);
      expect(got.status, `GET ${href}`).toBe(200);
      // Read to the end: a body left unread holds its connection open, and the server's shutdown waits for it.
      await got.arrayBuffer();
      expect((await fetch(href, { method: 'HEAD' })).status, `HEAD ${href}`).toBe(200);
    }
  });

  it('describes the store the data asset opens: the grid step is the cell size of the stored coordinates', async () => {
    const collection = await getJson('/stac/collections/sample');
    const zmetadata = await getJson('/zarr/sample/.zmetadata');
    const lon = (zmetadata.metadata as Record<string, { shape: number[] }>)['lon/.zarray']!;
    const x = (collection['cube:dimensions'] as Record<string, { extent: number[]; step: number }>).x!;
    expect(x.step * lon.shape[0]!).toBeCloseTo(x.extent[1]! - x.extent[0]!, 6);
  });

  it('places the grid with its projection fields as the stored coordinates do, for Zarr and Icechunk', async () => {
    for (const id of ['sample', 'sample-ic']) {
      const collection = await getJson(`/stac/collections/${id}`);
      const data = (collection.assets as Record<string, Record<string, unknown>>).data!;
      const store = new zarr.FetchStore(`${url}/zarr/${id}/`);
      const coordinate = async (name: string) =>
        (await zarr.get(
          await zarr.open
            .v2(zarr.root(store).resolve(name), { kind: 'array' })
            .catch(() => zarr.open.v3(zarr.root(store).resolve(name), { kind: 'array' })),
        )) as { data: Float64Array };
      const lon = (await coordinate('lon')).data;
      const lat = (await coordinate('lat')).data;
      expect(data['proj:code'], id).toBe('EPSG:4326');
      expect(data['proj:shape'], id).toEqual([lat.length, lon.length]);
      // rasterio's order: x = a*col + b*row + c, y = d*col + e*row + f; coordinates are cell centres.
      const [a, b, c, d, e, f] = data['proj:transform'] as number[];
      expect([b, d], id).toEqual([0, 0]);
      for (const col of [0, lon.length - 1]) expect(c! + a! * (col + 0.5), id).toBeCloseTo(lon[col]!, 9);
      for (const row of [0, lat.length - 1]) expect(f! + e! * (row + 0.5), id).toBeCloseTo(lat[row]!, 9);
      const [xmin, ymin, xmax, ymax] = data['proj:bbox'] as number[];
      expect(xmax! - xmin!, id).toBeCloseTo(Math.abs(a!) * lon.length, 9);
      expect(ymax! - ymin!, id).toBeCloseTo(Math.abs(e!) * lat.length, 9);
      expect(data, id).toMatchObject({
        'zarr:zarr_format': id === 'sample' ? 2 : 3,
        'zarr:node_type': 'group',
        // Version 2 stores carry .zmetadata, which xarray opens with consolidated=True.
        ...(id === 'sample' && { 'zarr:consolidated': true }),
      });
    }
  });
});

describe('the projection fields read by GDAL', () => {
  it('are the grid GDAL finds when it opens the store (Debian GDAL 3.6 reads Zarr v2)', async () => {
    const data = ((await getJson('/stac/collections/sample')).assets as Record<string, Record<string, unknown>>).data!;
    const gdal = await python<{ geoTransform: number[]; size: number[] }>(
      [
        'import json, sys',
        'from osgeo import gdal',
        'gdal.UseExceptions()',
        'raster = gdal.Open(f\'ZARR:"/vsicurl/{sys.argv[1]}":/value:0\')',
        'print(json.dumps({"geoTransform": list(raster.GetGeoTransform()), "size": [raster.RasterXSize, raster.RasterYSize]}))',
      ].join('\n'),
      [`${url}/zarr/sample/`],
    );
    const [x0, dx, rx, y0, ry, dy] = gdal.geoTransform;
    // GDAL derives the cell size from the coordinate values, so it may differ in the last bit.
    const transform = data['proj:transform'] as number[];
    [dx, rx, x0, ry, dy, y0].forEach((expected, i) =>
      expect(transform[i], `proj:transform[${i}]`).toBeCloseTo(expected!, 12),
    );
    expect(data['proj:shape']).toEqual([gdal.size[1], gdal.size[0]]);
  });
});

describe('a feature collection in the catalogue', () => {
  it('is a table of its GeoParquet file: columns as stored, primary geometry, row count as recorded', async () => {
    const collection = await getJson('/stac/collections/sample-districts');
    const record = await getJson('/features/sample-districts');
    expect(collection.stac_extensions).toEqual(['https://stac-extensions.github.io/table/v1.2.0/schema.json']);
    expect(collection['table:primary_geometry']).toBe('geometry');
    expect(collection['table:row_count']).toBe(record.feature_count);
    const columns = collection['table:columns'] as { name: string; type: string }[];
    expect(columns).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'code', type: 'string' }),
        expect.objectContaining({ name: 'geometry', type: 'geometry' }),
        expect.objectContaining({ name: 'bbox', type: 'struct' }),
      ]),
    );
    expect(collection.assets).toMatchObject({
      data: { href: `${url}/features/sample-districts/data.parquet`, type: 'application/vnd.apache.parquet' },
    });
    expect(collection.summaries).toMatchObject({ geometry_types: record.geometry_types, id_property: ['code'] });
  });
});

describe('the openEO JavaScript client', () => {
  it('connects through the well-known document, lists and describes collections, processes, formats and the account', async () => {
    const warn = vi.spyOn(console, 'warn');
    const connection = await OpenEO.connect(url);
    // The client warns when it cannot use the well-known document and falls back to the URL it was given.
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
    expect(connection.getBaseUrl()).toBe(url);
    expect(connection.capabilities().apiVersion()).toBe('1.2.0');

    const collections = await connection.listCollections();
    expect(collections.collections.map((c) => c.id)).toEqual(['sample', 'sample-districts', 'sample-ic', 'sample-nc']);
    const sample = await connection.describeCollection('sample');
    expect(sample).toMatchObject({ id: 'sample', summaries: { variables: ['value'] } });
    expect(Object.keys(sample['cube:dimensions'])).toEqual(['x', 'y', 't']);

    const { processes } = await connection.listProcesses();
    expect(processes.map((p) => p.id).sort()).toEqual([...IMPLEMENTED_PROCESSES].sort());
    // Stratus's own parameter of aggregate_spatial comes with the process's description.
    const aggregate = await connection.describeProcess('aggregate_spatial');
    expect(aggregate?.parameters?.map((p: { name: string }) => p.name)).toContain('weighting');
    const formats = await connection.listFileTypes();
    expect(Object.keys(formats.getInputTypes())).toEqual(['GTIFF', 'ZARR']);
    expect(Object.keys(formats.getOutputTypes())).toEqual([
      'JSON',
      'GTIFF',
      'NETCDF',
      'ZARR',
      'PNG',
      'GEOJSON',
      'CSV',
      'PARQUET',
      'DHIS2-JSON',
      'CHAP-CSV',
    ]);
    expect(await connection.describeAccount()).toMatchObject({ user_id: 'anonymous' });

    const missing = await connection.describeCollection('no-such-collection').catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'CollectionNotFound', status: 404 });
  });
});

describe('the HTML pages in headless Chromium', () => {
  it('render the landing, datasets, data sources and collection pages, linked to each other and to the JSON, without console errors', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`${page.url()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
      const pages: Record<string, string[]> = {
        '/': ['/datasets', '/data-sources', '/collections', '/stac/catalog.json'],
        '/datasets': ['/data-sources', '/collections', '/datasets/sample', '/datasets?f=json'],
        '/data-sources': ['/datasets', '/collections', '/data-sources/sample', '/data-sources?f=json'],
        '/collections/sample': [
          '/datasets',
          '/data-sources',
          '/collections',
          '/collections/sample?f=json',
          '/stac/collections/sample',
        ],
      };
      for (const [path, links] of Object.entries(pages)) {
        const response = await page.goto(`${url}${path}`);
        expect(response?.status(), path).toBe(200);
        expect(response?.headers()['content-type'], path).toMatch(/^text\/html/);
        expect((await page.locator('h1').first().textContent())?.trim(), path).not.toBe('');
        const hrefs = await page.locator('a').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')));
        expect(hrefs, path).toEqual(expect.arrayContaining(links));
      }
      expect(problems).toEqual([]);
      // The JSON a page links to is really JSON.
      const json = await page.request.get(`${url}/collections/sample?f=json`);
      expect(((await json.json()) as { id: string }).id).toBe('sample');
    } finally {
      await browser.close();
    }
  }, 60_000);
});
