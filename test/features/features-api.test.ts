/**
 * Feature collections end to end in embedded mode, over real HTTP: the example refresh of the offline sample
 * template at start, synchronous and asynchronous refreshes with their job records and events, the stored
 * GeoParquet file read back by hyparquet and by an independent reader (parquet-wasm + Arrow + wkx), and
 * refreshes from local GeoJSON and DHIS2-like servers that fail while the previous collection stays served.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { readParquet } from 'parquet-wasm';
import wkx from 'wkx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { featureCollectionKind, type FeatureCollection } from '../../core/resources/feature-collection/schema.ts';
import { startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { startUpstream, type Upstream } from '../support/upstream.ts';

let running: RunningEmbedded;
let dataDir: string;
let url: string;
/** Serves `districts.geojson` for the `districts-url` template. */
let files: Upstream;
/** A DHIS2-like organisation units API behind a personal access token, for the `org-units` template. */
let dhis2: Upstream;
let filesDir: string;

const square = (x: number, y: number) => [
  [
    [x, y],
    [x + 1, y],
    [x + 1, y + 1],
    [x, y + 1],
    [x, y],
  ],
];
const districts = (features: { code?: string; x: number }[]) =>
  JSON.stringify({
    type: 'FeatureCollection',
    features: features.map(({ code, x }) => ({
      type: 'Feature',
      properties: code === undefined ? {} : { code },
      geometry: { type: 'Polygon', coordinates: square(x, 8) },
    })),
  });
const GOOD = districts([
  { code: 'A', x: -13 },
  { code: 'B', x: -12 },
]);

/** Templates of the two remote providers, pointing at the local servers with quick retries. */
function templates(): string {
  const fast = 'attempts: 2, backoffMs: 10, timeoutMs: 500';
  return [
    'apiVersion: climate.stratus.dev/v1alpha1',
    'kind: DataSource',
    'metadata: {name: districts-url, namespace: default}',
    `spec: {datasetName: Districts from a URL, itemType: feature, idProperty: code, provider: {name: url, parameters: {url: '${files.url}/districts.geojson', ${fast}}}}`,
    '---',
    'apiVersion: climate.stratus.dev/v1alpha1',
    'kind: DataSource',
    'metadata: {name: org-units, namespace: default}',
    `spec: {datasetName: Organisation units, itemType: feature, idProperty: id, provider: {name: dhis2, parameters: {baseUrl: '${dhis2.url}', levels: [2], pageSize: 1, tokenSecret: dhis2-token, ${fast}}}}`,
    '---',
    'apiVersion: v1',
    'kind: Secret',
    'metadata: {name: dhis2-token, namespace: default}',
    'stringData: {token: d2pat_test}',
  ].join('\n');
}

async function startUpstreams() {
  filesDir = await mkdtemp(join(tmpdir(), 'stratus-feature-upstream-'));
  await writeFile(join(filesDir, 'districts.geojson'), GOOD);
  await mkdir(join(filesDir, 'org-units'));
  const units = [
    { id: 'O6uvpzGd5pu', name: 'Bo', level: 2, geometry: { type: 'Polygon', coordinates: square(-12, 7) } },
    { id: 'fdc6uOvgoji', name: 'Bombali', level: 2, geometry: { type: 'Polygon', coordinates: square(-12, 9) } },
  ];
  for (const [index, unit] of units.entries())
    await writeFile(
      join(filesDir, 'org-units', `${index + 1}.json`),
      JSON.stringify({ pager: { page: index + 1, pageCount: units.length }, organisationUnits: [unit] }),
    );
  files = await startUpstream(filesDir);
  dhis2 = await startUpstream(
    filesDir,
    { authorization: 'ApiToken d2pat_test' },
    { fileFor: (u) => `org-units/${u.searchParams.get('page')}.json` },
  );
}

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
  await startUpstreams();
  const manifests: Record<string, string> = {};
  manifests['templates.yaml'] = templates();
  running = await startEmbedded(dataDir, { manifests });
  url = running.url;
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await files?.close();
  await dhis2?.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(filesDir, { recursive: true, force: true });
});

/** The Ready condition of a FeatureCollection, as its controller summarizes it. */
async function readyCondition(id: string) {
  const collection = await running.cluster.get<FeatureCollection>(featureCollectionKind, id, 'default');
  return collection?.status?.conditions?.find((c) => c.type === 'Ready');
}

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
    const ready = () => readyCondition('sample-districts');
    expect(await eventually(async () => ((await ready())?.status === 'True' ? ready() : undefined))).toMatchObject({
      reason: 'Stored',
      message: expect.stringMatching(/^Serving 12 features from /),
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

describe('refreshes from remote providers', () => {
  it('stores a GeoJSON collection from a URL', async () => {
    const response = await post('/features/districts-url/refresh');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 'districts-url', id_property: 'code', feature_count: 2 });
  });

  it('stores the organisation units of a DHIS2-like API, every page, with the token from the Secret', async () => {
    const response = await post('/features/org-units/refresh');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 'org-units', id_property: 'id', feature_count: 2 });
    expect(dhis2.requests.map((r) => new URL(r.split(' ')[1]!, 'http://x').searchParams.get('page'))).toEqual([
      '1',
      '2',
    ]);
  });

  describe('a failed refresh answers 502 and leaves the previous collection served', () => {
    const served = async () => {
      const response = await get('/features/districts-url/data.parquet');
      expect(response.status).toBe(200);
      const rows = await parquetReadObjects({ file: await response.arrayBuffer() });
      return { etag: response.headers.get('etag'), codes: rows.map((r) => r.code) };
    };

    it.each([
      [
        'the server answers 500',
        () => files.fail('/districts.geojson', 'status-500', 'status-500'),
        /UpstreamUnavailable: .*HTTP 500/,
      ],
      [
        'the server never answers',
        () => files.fail('/districts.geojson', 'hang', 'hang'),
        /UpstreamUnavailable: .*no answer within 500 ms/,
      ],
      [
        'the body is not JSON',
        () => writeFile(join(filesDir, 'districts.geojson'), '{"type": "Feat'),
        /InvalidGeoJSON: .* is not JSON/,
      ],
      [
        'a feature has no id_property',
        () => writeFile(join(filesDir, 'districts.geojson'), districts([{ code: 'A', x: -13 }, { x: -12 }])),
        /InvalidFeatures: 1 feature problem\(s\): #1: no value for id_property "code"/,
      ],
      [
        'a geometry cannot be repaired',
        () =>
          writeFile(
            join(filesDir, 'districts.geojson'),
            JSON.stringify({
              type: 'FeatureCollection',
              features: [
                {
                  type: 'Feature',
                  properties: { code: 'A' },
                  geometry: {
                    type: 'Polygon',
                    coordinates: [
                      [
                        [0, 0],
                        [1, 1],
                      ],
                    ],
                  },
                },
              ],
            }),
          ),
        /InvalidFeatures: .*#0 \(id "A"\): a ring has 2 distinct positions/,
      ],
    ])('when %s', async (_name, breakIt, detail) => {
      const before = await served();
      const record = await (await get('/features/districts-url')).json();
      await breakIt();
      try {
        const response = await post('/features/districts-url/refresh');
        expect(response.status).toBe(502);
        const body = (await response.json()) as { detail: string };
        expect(body.detail).toMatch(detail);
        expect(body.detail).toMatch(
          /the previous collection stays served. Job record: \/ingestions\/jobs\/districts-url-/,
        );
        expect(await served()).toEqual(before);
        expect(await (await get('/features/districts-url')).json()).toEqual(record);
        // Still Ready: the previous file is served; the condition names the refresh that failed.
        const run = /\/ingestions\/jobs\/(districts-url-[0-9a-f]+)/.exec(body.detail)![1]!;
        const condition = await eventually(async () => {
          const found = await readyCondition('districts-url');
          return found?.message.includes(`(${run}) failed`) ? found : undefined;
        });
        expect(condition).toMatchObject({ status: 'True', reason: 'Stored' });
      } finally {
        await writeFile(join(filesDir, 'districts.geojson'), GOOD);
      }
    });
  });
});
