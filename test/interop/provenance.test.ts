/**
 * Provenance and reproducible reruns of batch jobs, end to end in embedded mode: a job per output format over a
 * dataset of its own and the sample districts; each result's provenance Item validated against the published
 * Processing and File extension schemas (test/fixtures/stac-extensions) and its checksums against the bytes the
 * API serves; then a new version of the dataset is published and every job is rerun: the rerun reads the version
 * the original read, and every file it writes has the original's checksum.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../core/resources/feature-collection/schema.ts';
import { ingestionKind } from '../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../core/resources/kind.ts';
import { validateObject } from '../../core/resources/registry.ts';
import { sampleDatasetManifest, startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { provenanceExtensionsValidator } from '../support/stac-extensions.ts';

const DATASET = 'provenance-sample';
const BBOX = { west: -12, south: 8, east: -11, north: 9 };
const root = resolve(import.meta.dirname, '../..');

let dataDir: string;
let running: RunningEmbedded;

interface Item {
  stac_extensions: string[];
  properties: Record<string, unknown> & {
    'stratus:inputs': { datasets: { id: string; version: string; storeDigest: string }[] };
  };
  assets: Record<string, { href: string; 'file:checksum': string; 'file:size': number }>;
  links: { rel: string; href: string }[];
}

const load = (days: [string, string]) => ({
  process_id: 'load_collection',
  arguments: { id: DATASET, spatial_extent: BBOX, temporal_extent: days },
});
const reducer = (process: string) => ({
  process_graph: {
    r: { process_id: process, arguments: { data: { from_parameter: 'data' } }, result: true },
  },
});

/** Ten days of the dataset, their maximum for the formats that take one image. */
function rasterGraph(format: string, reduced: boolean) {
  return {
    load: load(['2024-01-01', '2024-01-11']),
    ...(reduced && {
      max: {
        process_id: 'reduce_dimension',
        arguments: { data: { from_node: 'load' }, dimension: 't', reducer: reducer('max') },
      },
    }),
    save: {
      process_id: 'save_result',
      arguments: { data: { from_node: reduced ? 'max' : 'load' }, format },
      result: true,
    },
  };
}

/** The monthly means of the sample districts. */
function vectorGraph(format: string, options: Record<string, unknown> = {}) {
  return {
    load: load(['2024-01-01', '2024-01-11']),
    monthly: {
      process_id: 'aggregate_temporal_period',
      arguments: { data: { from_node: 'load' }, period: 'month', reducer: reducer('mean') },
    },
    districts: { process_id: 'load_features', arguments: { id: 'sample-districts' } },
    means: {
      process_id: 'aggregate_spatial',
      arguments: { data: { from_node: 'monthly' }, geometries: { from_node: 'districts' }, reducer: reducer('mean') },
    },
    save: { process_id: 'save_result', arguments: { data: { from_node: 'means' }, format, options }, result: true },
  };
}

const GRAPHS: Record<string, Record<string, unknown>> = {
  GTiff: rasterGraph('GTiff', true),
  netCDF: rasterGraph('netCDF', false),
  Zarr: rasterGraph('Zarr', false),
  PNG: rasterGraph('PNG', true),
  'JSON (raster)': rasterGraph('JSON', false),
  CSV: vectorGraph('CSV'),
  GeoJSON: vectorGraph('GeoJSON'),
  Parquet: vectorGraph('Parquet'),
  'JSON (vector)': vectorGraph('JSON'),
  'dhis2-json': vectorGraph('dhis2-json', { data_element: 'DE_PRECIP', period_type: 'monthly' }),
};

async function json<T>(path: string, init?: RequestInit): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(`${running.url}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...init?.headers },
  });
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}

async function finished(id: string): Promise<void> {
  await eventually(
    async () => {
      const { body } = await json<{ status: string }>(`/jobs/${id}`);
      if (body.status === 'error')
        throw new Error(`job ${id} failed: ${JSON.stringify((await json(`/jobs/${id}/results`)).body)}`);
      return body.status === 'finished' ? true : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
}

async function provenanceOf(id: string): Promise<Item> {
  const results = await json<Item>(`/jobs/${id}/results`);
  const link = results.body.links.find((l) => l.rel === 'provenance');
  expect(link?.href).toMatch(new RegExp(`/jobs/${id}/results/provenance$`));
  const response = await fetch(link!.href);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/geo\+json/);
  return (await response.json()) as Item;
}

const sha256Multihash = (bytes: Uint8Array) => `1220${createHash('sha256').update(bytes).digest('hex')}`;

describe('provenance and reruns of batch jobs (embedded)', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-provenance-'));
    running = await startEmbedded(dataDir, {
      examples: false,
      manifests: {
        'dataset.yaml': sampleDatasetManifest({
          name: DATASET,
          title: 'Provenance sample',
          format: 'zarr',
          run: `${DATASET}-initial`,
          start: '2024-01-01',
          end: '2024-01-15',
        }),
        'districts.yaml': await readFile(
          join(root, 'manifests/examples/feature-collection-sample-districts.yaml'),
          'utf8',
        ),
      },
    });
    await eventually(
      async () => {
        const dataset = await running.cluster.get<Dataset>(datasetKind, DATASET, 'default');
        const districts = await running.cluster.get<FeatureCollection>(
          featureCollectionKind,
          'sample-districts',
          'default',
        );
        return dataset?.status?.currentVersion && districts?.status?.path ? true : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('writes a provenance Item per result that validates, and a rerun after a new version has the same checksums', async () => {
    const validate = await provenanceExtensionsValidator();
    const originals: Record<string, string> = {};
    for (const [format, graph] of Object.entries(GRAPHS)) {
      const created = await json<{ id: string }>('/jobs', {
        method: 'POST',
        body: JSON.stringify({ title: format, process: { process_graph: graph } }),
      });
      expect(created.status).toBe(201);
      originals[format] = created.body.id;
      expect((await fetch(`${running.url}/jobs/${created.body.id}/results`, { method: 'POST' })).status).toBe(202);
    }
    for (const id of Object.values(originals)) await finished(id);

    const first = (await running.cluster.get<Dataset>(datasetKind, DATASET, 'default'))!.status!.currentVersion!;
    const items: Record<string, Item> = {};
    for (const [format, id] of Object.entries(originals)) {
      const item = await provenanceOf(id);
      items[format] = item;
      expect(validate(item), format).toEqual([]);
      expect(item.properties).toMatchObject({
        'processing:software': { stratus: expect.any(String) },
        'processing:lineage': expect.stringContaining(`dataset ${DATASET} at version ${first}`),
        'stratus:process_graph_sha256': expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(item.properties['stratus:inputs'].datasets).toEqual([
        expect.objectContaining({ id: DATASET, version: first, storeDigest: expect.stringMatching(/^[0-9a-f]{64}$/) }),
      ]);
      // The checksum is that of the bytes served (a Zarr store's is of its listing; its root is its metadata).
      for (const [name, asset] of Object.entries(item.assets)) {
        if (name.endsWith('.zarr')) continue;
        const bytes = new Uint8Array(await (await fetch(asset.href)).arrayBuffer());
        expect([asset['file:checksum'], asset['file:size']], `${format} ${name}`).toEqual([
          sha256Multihash(bytes),
          bytes.byteLength,
        ]);
      }
    }
    expect(items.CSV!.properties['stratus:inputs']).toMatchObject({
      featureCollections: [{ id: 'sample-districts', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
    });

    // A new version of the dataset: the reruns must still read the first.
    const ingestion = validateObject({
      apiVersion: API_VERSION,
      kind: 'Ingestion',
      metadata: { name: `${DATASET}-again`, namespace: 'default' },
      spec: { source: 'sample', datasetId: DATASET, start: '2024-01-01', end: '2024-01-03', overwrite: true },
    });
    if (!ingestion.ok) throw new Error(JSON.stringify(ingestion.issues));
    await running.cluster.apply(ingestionKind, ingestion.object);
    await eventually(
      async () => {
        const dataset = await running.cluster.get<Dataset>(datasetKind, DATASET, 'default');
        return dataset?.status?.currentVersion !== first ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

    const reruns: Record<string, string> = {};
    for (const [format, id] of Object.entries(originals)) {
      const rerun = await json<{ id: string; status: string }>(`/jobs/${id}/rerun`, { method: 'POST', body: '{}' });
      expect([rerun.status, rerun.body.status], format).toEqual([201, 'queued']);
      expect(rerun.headers.get('openeo-identifier')).toBe(rerun.body.id);
      reruns[format] = rerun.body.id;
    }
    for (const id of Object.values(reruns)) await finished(id);
    for (const [format, id] of Object.entries(reruns)) {
      const item = await provenanceOf(id);
      expect(validate(item), format).toEqual([]);
      const original = items[format]!;
      expect(item.properties['stratus:inputs'], format).toEqual(original.properties['stratus:inputs']);
      expect(item.links).toContainEqual(expect.objectContaining({ rel: 'predecessor-version' }));
      const checksums = (i: Item) => Object.values(i.assets).map((a) => a['file:checksum']);
      expect(checksums(item), format).toEqual(checksums(original));
    }

    // A job that names the first version while another is served: its provenance names the version it read.
    const eq = { process_id: 'eq', arguments: { x: { from_parameter: 'value' }, y: first }, result: true };
    const pinned = await json<{ id: string }>('/jobs', {
      method: 'POST',
      body: JSON.stringify({
        title: 'the first version',
        process: {
          process_graph: {
            load: {
              process_id: 'load_collection',
              arguments: {
                id: DATASET,
                spatial_extent: BBOX,
                temporal_extent: ['2024-01-01', '2024-01-03'],
                properties: { version: { process_graph: { eq } } },
              },
            },
            save: {
              process_id: 'save_result',
              arguments: { data: { from_node: 'load' }, format: 'netCDF' },
              result: true,
            },
          },
        },
      }),
    });
    expect((await fetch(`${running.url}/jobs/${pinned.body.id}/results`, { method: 'POST' })).status).toBe(202);
    await finished(pinned.body.id);
    const served = (await running.cluster.get<Dataset>(datasetKind, DATASET, 'default'))!.status!.currentVersion!;
    expect(served).not.toBe(first);
    expect((await provenanceOf(pinned.body.id)).properties['stratus:inputs'].datasets).toEqual([
      expect.objectContaining({ id: DATASET, version: first }),
    ]);
  }, 600_000);
});
