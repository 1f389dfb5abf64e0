/**
 * Feature collections end to end in embedded mode, over real HTTP: the example refresh of the offline sample
 * template at start, synchronous and asynchronous refreshes with their job records and events, and the stored
 * GeoParquet file read back by hyparquet and by an independent reader (parquet-wasm + Arrow + wkx).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { readParquet } from 'parquet-wasm';
import wkx from 'wkx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEmbedded, type RunningEmbedded } from '../../cmd/embedded.ts';
import { eventually } from '../support/eventually.ts';

const root = resolve(import.meta.dirname, '../..');
let running: RunningEmbedded;
let dataDir: string;
let url: string;

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers });
const post = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers });

interface JobRecord {
  jobID: string;
  processID: string;
  status: string;
  result: Record<string, unknown> | null;
  error: { type: string; message: string } | null;
  events: { type: string; source: string; eventID: string; data: Record<string, unknown> }[];
}

const jobDone = (location: string) =>
  eventually(
    async () => {
      const job = (await (await get(location)).json()) as JobRecord;
      return ['successful', 'failed', 'cancelled'].includes(job.status) ? job : undefined;
    },
    { timeoutMs: 30_000 },
  );

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stratus-features-'));
  running = await runEmbedded({
    dataDir,
    manifests: [join(root, 'manifests/data-sources'), join(root, 'manifests/examples')],
    config: join(root, 'config/stratus.properties'),
    host: '127.0.0.1',
    port: 0,
  });
  url = running.url;
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the sample feature collection of make run', () => {
  it('is stored by the example refresh at start and described by its record', async () => {
    const job = await jobDone('/ingestions/jobs/sample-districts-initial');
    expect(job).toMatchObject({ processID: 'feature refresh', status: 'successful' });
    const list = (await (await get('/features')).json()) as { kind: string; items: { id: string }[] };
    expect(list.kind).toBe('FeatureCollectionList');
    expect(list.items.map((i) => i.id)).toEqual(['sample-districts']);
    expect(await (await get('/features/sample-districts')).json()).toMatchObject({
      id: 'sample-districts',
      name: 'Sample districts',
      license: 'Apache-2.0',
      attribution: 'Stratus',
      id_property: 'code',
      feature_count: 12,
      geometry_types: ['Polygon'],
      primary_geometry: 'geometry',
      crs: 'EPSG:4326',
      version: null,
      extent: { spatial: { xmin: -13.5, ymin: 6.9, xmax: -10.2, ymax: 10 } },
    });
  });

  it('serves a GeoParquet file that hyparquet and parquet-wasm read with the same features', async () => {
    const response = await get('/features/sample-districts/data.parquet');
    expect(response.status).toBe(200);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const viaHyparquet = await parquetReadObjects({ file: bytes.buffer });
    const viaArrow = tableFromIPC(readParquet(bytes).intoIPCStream())
      .toArray()
      .map((row) => row.toJSON());
    expect(viaHyparquet).toHaveLength(12);
    expect(viaArrow.map((r) => r.code)).toEqual(viaHyparquet.map((r) => r.code));
    expect(viaArrow.map((r) => wkx.Geometry.parse(Buffer.from(r.geometry as Uint8Array)).toGeoJSON())).toEqual(
      viaHyparquet.map((r) => r.geometry),
    );
  });
});

describe('POST /features/{id}/refresh', () => {
  it('answers the new record synchronously and records the run as a feature refresh job', async () => {
    const before = (await (await get('/features/sample-districts')).json()) as { last_updated: string };
    const response = await post('/features/sample-districts/refresh');
    expect(response.status).toBe(200);
    const record = (await response.json()) as { feature_count: number; last_updated: string };
    expect(record.feature_count).toBe(12);
    expect(Date.parse(record.last_updated)).toBeGreaterThan(Date.parse(before.last_updated));
  });

  it('with Prefer: respond-async, answers 202 with the job, whose events say the collection was updated', async () => {
    const response = await post('/features/sample-districts/refresh', { prefer: 'respond-async' });
    expect(response.status).toBe(202);
    const location = response.headers.get('location')!;
    expect(location).toMatch(/^\/ingestions\/jobs\/sample-districts-[0-9a-f]{8}$/);
    const job = await jobDone(location);
    expect(job).toMatchObject({ processID: 'feature refresh', status: 'successful', error: null });
    expect(job.result).toMatchObject({
      collectionId: 'sample-districts',
      featureCount: 12,
      report: { received: 12, stored: 12, repairs: [] },
    });
    expect(job.events).toEqual([
      expect.objectContaining({
        type: 'featurecollection.updated',
        source: '/features/sample-districts',
        eventID: `${job.jobID}:1`,
        data: expect.objectContaining({ collection_id: 'sample-districts', action: 'replace', feature_count: 12 }),
      }),
    ]);
  });
});
