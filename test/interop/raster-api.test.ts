/**
 * Raster datasets end to end in embedded mode, over real HTTP: data sources, ingestion (sync, async, conflicts,
 * cancellation, refusals), the Zarr store served at /zarr, and that store read by Python xarray and GDAL.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { periodRange } from '../../core/periods/index.ts';
import { sampleProvider } from '../../core/providers/sample.ts';
import * as zarr from 'zarrita';
import { startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { rawStatus as rawRequestStatus } from '../support/raw-request.ts';
import { python } from '../support/python.ts';
import { startUpstream, type Upstream } from '../support/upstream.ts';

const root = resolve(import.meta.dirname, '../..');
const BBOX: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];

let running: RunningEmbedded;
let dataDir: string;
let url: string;
/** A CHC-like server with synthetic CHIRPS COGs for 2024-01-01..05, for the local `chirps-local` source. */
let chc: Upstream;
/** An Earth-Data-Hub-like server with a synthetic ERA5-Land Zarr store behind basic auth. */
let edh: Upstream;

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const rawStatus = (path: string) => rawRequestStatus(url, path);

/** What `POST /ingestions` answers with `Prefer: respond-async`. */
interface Accepted {
  ingestion_id: string;
  status: string;
  dataset: null;
}

interface Job {
  jobID: string;
  status: string;
  cancelRequested: boolean;
  progress: { done: number; total: number } | null;
  result: Record<string, unknown> | null;
  events: { type: string; data: Record<string, unknown> }[];
}

const job = async (id: string) => (await (await get(`/ingestions/jobs/${id}`)).json()) as Job;
const until = (id: string, statuses: string[]) =>
  eventually(
    async () => {
      const record = await job(id);
      return statuses.includes(record.status) ? record : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stratus-raster-api-'));
  const manifests: Record<string, string> = {};
  await python(await readFile(join(root, 'test/fixtures/providers/make-cogs.py'), 'utf8'), [
    join(dataDir, 'chc/final'),
    'rnl/cogs/%Y/chirps-v3.0.rnl.%Y.%m.%d.cog',
    '2024-01-01',
    '2024-01-05',
    '-20',
    '20',
    '0.05',
    '400',
    '400',
  ]);
  chc = await startUpstream(join(dataDir, 'chc'));
  await python(await readFile(join(root, 'test/fixtures/providers/make-era5-zarr.py'), 'utf8'), [
    join(dataDir, 'edh/era5-land.zarr'),
    '2024-01-01T00',
    '24',
    '10.5',
    '6.5',
  ]);
  edh = await startUpstream(join(dataDir, 'edh'), { user: 'edh', password: 'token-42' });
  const era5Source = (name: string, secret: string) =>
    [
      'apiVersion: climate.stratus.dev/v1alpha1',
      'kind: DataSource',
      `metadata: {name: ${name}, namespace: default}`,
      'spec:',
      '  datasetName: ERA5-Land from a local store',
      '  variable: t2m',
      '  periodType: hourly',
      '  units: degC',
      `  provider: {name: era5-land, parameters: {storeUrl: '${edh.url}/era5-land.zarr', credentialsSecret: ${secret}, attempts: 1}}`,
    ].join('\n');
  manifests['era5-local.yaml'] = [
    'apiVersion: v1',
    'kind: Secret',
    'metadata: {name: edh-credentials, namespace: default}',
    'stringData: {username: edh, password: token-42}',
    '---',
    'apiVersion: v1',
    'kind: Secret',
    'metadata: {name: edh-wrong, namespace: default}',
    `data: {username: ${Buffer.from('edh').toString('base64')}, password: ${Buffer.from('nope').toString('base64')}}`,
    '---',
    era5Source('era5-local', 'edh-credentials'),
    '---',
    era5Source('era5-wrong-password', 'edh-wrong'),
  ].join('\n');
  manifests['chirps-local.yaml'] = [
    'apiVersion: climate.stratus.dev/v1alpha1',
    'kind: DataSource',
    'metadata: {name: chirps-local, namespace: default}',
    'spec:',
    '  datasetName: CHIRPS from a local CHC',
    '  variable: precip',
    '  periodType: daily',
    '  units: mm/day',
    `  provider: {name: chirps, parameters: {baseUrl: '${chc.url}/final', backoffMs: 5}}`,
    '  display: {colormap: blues, range: [0, 50]}',
  ].join('\n');
  manifests['chirps.yaml'] = [
    'apiVersion: climate.stratus.dev/v1alpha1',
    'kind: DataSource',
    'metadata: {name: chirps-elsewhere, namespace: default}',
    'spec: {datasetName: CHIRPS, periodType: daily, provider: {name: no-such-provider}}',
  ].join('\n');
  // A dataset of the sample source stored as NetCDF-4, filled by an Ingestion applied with it.
  manifests['netcdf.yaml'] = [
    'apiVersion: climate.stratus.dev/v1alpha1',
    'kind: Dataset',
    'metadata: {name: sample-nc, namespace: default}',
    'spec: {source: sample, datasetName: Sample as NetCDF, variable: value, periodType: daily, format: netcdf}',
    '---',
    'apiVersion: climate.stratus.dev/v1alpha1',
    'kind: Ingestion',
    'metadata: {name: sample-nc-january, namespace: default}',
    "spec: {source: sample, datasetId: sample-nc, start: '2024-01-01', end: '2024-01-31'}",
    '---',
    'apiVersion: climate.stratus.dev/v1alpha1',
    'kind: Dataset',
    'metadata: {name: sample-v3, namespace: default}',
    'spec: {source: sample, datasetName: Sample as Zarr v3, variable: value, periodType: daily, zarrVersion: 3}',
    '---',
    'apiVersion: climate.stratus.dev/v1alpha1',
    'kind: Ingestion',
    'metadata: {name: sample-v3-february, namespace: default}',
    "spec: {source: sample, datasetId: sample-v3, start: '2024-02-01', end: '2024-02-29'}",
  ].join('\n');
  running = await startEmbedded(dataDir, { manifests });
  url = running.url;
  // The example Ingestion materializes 2024 of the sample source at start.
  await until('sample-2024', ['successful']);
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await chc?.close();
  await edh?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('data sources', () => {
  it('lists every source with ingestable in JSON, rasters first', async () => {
    const sources = (await (await get('/data-sources')).json()) as { dataset_id: string; ingestable: boolean }[];
    expect(sources.map((s) => [s.dataset_id, s.ingestable])).toEqual([
      ['chirps-elsewhere', false],
      ['chirps-local', true],
      ['chirps-v3-daily', true],
      ['era5-land-t2m-hourly', true],
      ['era5-local', true],
      ['era5-wrong-password', true],
      ['sample', true],
      ['sample-coarse', true],
      ['sample-precipitation', true],
      ['sample-tmax', true],
      ['sample-tmin', true],
      ['worldpop-population-yearly', true],
      ['sample-districts', true],
    ]);
  });

  it('lists only what this instance can fetch in HTML, and the detail page offers an ingestion form', async () => {
    const list = await (await get('/data-sources', { accept: 'text/html' })).text();
    expect(list).toContain('href="/data-sources/sample"');
    expect(list).not.toContain('chirps-elsewhere"');
    expect(list).toContain('href="/data-sources/chirps-local"');
    const detail = await (await get('/data-sources/sample', { accept: 'text/html' })).text();
    expect(detail).toContain('<form class="run" method="post" action="/ingestions" data-run>');
    expect(detail).toContain('<input type="hidden" name="dataset_id" value="sample" />');
    const json = (await (await get('/data-sources/sample')).json()) as Record<string, unknown>;
    expect(json).toMatchObject({
      dataset_id: 'sample',
      itemType: 'coverage',
      period_type: 'daily',
      coverage: { spatial: { xmin: -13.5, ymin: 6.9, xmax: -10.2, ymax: 10 } },
      datasets: [
        { dataset_id: 'sample', href: '/datasets/sample' },
        { dataset_id: 'sample-nc', href: '/datasets/sample-nc' },
        { dataset_id: 'sample-v3', href: '/datasets/sample-v3' },
      ],
    });
    expect(json).not.toHaveProperty('parameters');
    expect((await get('/data-sources/nope')).status).toBe(404);
  });
});

describe('ingestion requests', () => {
  it('refuses an unknown source (404), a malformed period (422) or a source without provider (400) before queueing', async () => {
    const before = ((await (await get('/ingestions')).json()) as { items: unknown[] }).items.length;
    const unknown = await post('/ingestions', { dataset_id: 'nope', start: '2024-01-01' });
    expect(unknown.status).toBe(404);
    const malformed = await post('/ingestions', { dataset_id: 'sample', start: '2024-13-01' });
    expect(malformed.status).toBe(422);
    const [item] = ((await malformed.json()) as { detail: { loc: unknown[]; msg: string }[] }).detail;
    expect(item).toMatchObject({ loc: ['body', 'start'], msg: expect.stringMatching(/expected the form 2024-01-31/) });
    const reversed = await post('/ingestions', { dataset_id: 'sample', start: '2024-02-01', end: '2024-01-01' });
    expect(reversed.status).toBe(422);
    const noProvider = await post('/ingestions', { dataset_id: 'chirps-elsewhere', start: '2024-01-01' });
    expect(noProvider.status).toBe(400);
    expect(((await noProvider.json()) as { detail: string }).detail).toMatch(/no-such-provider/);
    const invalid = await post('/ingestions', { dataset_id: 'sample', start: '2024-01-01', extra: 1 });
    expect(invalid.status).toBe(422);
    expect(((await (await get('/ingestions')).json()) as { items: unknown[] }).items.length).toBe(before);
  });

  it('runs synchronously and answers with the dataset it wrote: the union of what was stored and the rewritten periods', async () => {
    const response = await post('/ingestions', {
      dataset_id: 'sample',
      start: '2024-01-01',
      end: '2024-02-15',
      overwrite: true,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { ingestion_id: string; status: string; dataset: Record<string, unknown> };
    expect(body.status).toBe('successful');
    expect(body.dataset).toMatchObject({
      dataset_id: 'sample',
      // The overwrite rewrites its six weeks; the rest of 2024, stored before, stays served (docs/datasets.md).
      extent: { temporal: { start: '2024-01-01', end: '2024-12-31' } },
      publication: { status: 'published' },
    });
    expect(await (await get(`/ingestions/${body.ingestion_id}`)).json()).toMatchObject({ status: 'successful' });
    const detail = (await (await get('/datasets/sample')).json()) as { versions: { created_at: string }[] };
    expect(detail.versions).toHaveLength(2);
    expect(detail.versions[0]!.created_at > detail.versions[1]!.created_at).toBe(true);
  });

  it('runs asynchronously with 202 and Location, refuses a second writer with 409, and records dataset.updated', async () => {
    const response = await post(
      '/ingestions',
      { dataset_id: 'sample', start: '2023-06-01', end: '2024-06-30', overwrite: true },
      { prefer: 'respond-async' },
    );
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as Accepted;
    expect(response.headers.get('location')).toBe(`/ingestions/jobs/${accepted.ingestion_id}`);
    expect(accepted).toMatchObject({ status: 'accepted', dataset: null });
    expect(await job(accepted.ingestion_id)).toMatchObject({ jobID: accepted.ingestion_id, cancelRequested: false });
    const second = await post('/ingestions', { dataset_id: 'sample', start: '2024-01-01', overwrite: true });
    expect(second.status).toBe(409);
    const done = await until(accepted.ingestion_id, ['successful', 'failed']);
    expect(done).toMatchObject({ status: 'successful', progress: { done: 396, total: 396 } });
    expect(done.events).toMatchObject([
      {
        type: 'dataset.updated',
        // The earlier half of 2023 joins what was stored: the coverage grows to the union.
        data: { dataset_id: 'sample', action: 'update', current_start: '2023-06-01', current_end: '2024-12-31' },
      },
    ]);
    expect((await fetch(`${url}/ingestions/jobs/${accepted.ingestion_id}`, { method: 'DELETE' })).status).toBe(409);
  });

  it('cancels a running ingestion between periods and keeps the version readers are served', async () => {
    const before = (await (await get('/datasets/sample')).json()) as { extent: unknown };
    const response = await post(
      '/ingestions',
      { dataset_id: 'sample', start: '1990-01-01', end: '2024-12-31', overwrite: true },
      { prefer: 'respond-async' },
    );
    const { ingestion_id: jobID } = (await response.json()) as Accepted;
    await eventually(async () => ((await job(jobID)).progress?.done ?? 0) > 0 || undefined, { timeoutMs: 20_000 });
    const cancel = await fetch(`${url}/ingestions/jobs/${jobID}`, { method: 'DELETE' });
    expect(cancel.status).toBe(202);
    expect(((await cancel.json()) as Job).cancelRequested).toBe(true);
    const cancelled = await until(jobID, ['cancelled', 'successful', 'failed']);
    expect(cancelled.status).toBe('cancelled');
    expect(((await (await get('/datasets/sample')).json()) as { extent: unknown }).extent).toEqual(before.extent);
  });
});

describe('thumbnails', () => {
  it('serves a PNG of the newest period that GDAL reads, coloured and linked from the record', async () => {
    const record = (await (await get('/datasets/sample')).json()) as { links: { rel: string; href: string }[] };
    expect(record.links).toContainEqual(
      expect.objectContaining({ rel: 'preview', href: '/datasets/sample/thumbnail.png' }),
    );
    const response = await get('/datasets/sample/thumbnail.png');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const file = join(dataDir, 'thumbnail.png');
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    const png = await python<{ size: number[]; bands: number; alpha_min: number; distinct_red: number }>(
      [
        'import json, sys',
        'from osgeo import gdal',
        'd = gdal.Open(sys.argv[1])',
        'a = d.ReadAsArray()',
        'print(json.dumps({"size": [d.RasterXSize, d.RasterYSize], "bands": d.RasterCount,',
        '  "alpha_min": int(a[3].min()), "distinct_red": len(set(a[0].flatten().tolist()))}))',
      ].join('\n'),
      [file],
    );
    // 66 x 62 cells scaled up to 256 pixels on the longer side (docs/datasets.md#thumbnails): every cell has a
    // value, the colours vary.
    expect(png).toMatchObject({ size: [256, 240], bands: 4, alpha_min: 255 });
    expect(png.distinct_red).toBeGreaterThan(10);
    expect((await get('/datasets/nope/thumbnail.png')).status).toBe(404);
  });
});

describe('a CHIRPS ingestion from a local CHC server', () => {
  it('serves at /zarr, to xarray, exactly the fixture values of the extent window as GDAL reads them', async () => {
    const response = await post('/ingestions', { dataset_id: 'chirps-local', start: '2024-01-01', end: '2024-01-05' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { status: string }).status).toBe('successful');
    const served = join(dataDir, 'chirps-served.f32');
    await python(await readFile(join(root, 'test/interop/zarr-readers.py'), 'utf8'), [
      `${url}/zarr/chirps-local/`,
      'precip',
      served,
    ]);
    const expected = join(dataDir, 'chirps-expected.f32');
    await python(
      [
        'import sys',
        'import numpy as np',
        'from osgeo import gdal',
        'root, out = sys.argv[1], sys.argv[2]',
        'planes = []',
        'for day in range(1, 6):',
        '    d = gdal.Open(f"{root}/rnl/cogs/2024/chirps-v3.0.rnl.2024.01.{day:02d}.cog")',
        '    x0, res, _, y0, _, _ = d.GetGeoTransform()',
        '    a = d.GetRasterBand(1).ReadAsArray(round((-13.5 - x0) / res), round((y0 - 10.0) / res), 66, 62)',
        '    a = a.astype("<f4"); a[a == -9999] = np.nan; planes.append(a)',
        'np.stack(planes).tofile(out)',
        'print("{}")',
      ].join('\n'),
      [join(dataDir, 'chc/final'), expected],
    );
    const [a, b] = [await readFile(served), await readFile(expected)];
    expect(a.length).toBe(5 * 62 * 66 * 4);
    expect(a.equals(b)).toBe(true);
    expect(chc.requests.some((r) => r.includes('chirps-v3.0.rnl.2024.01.05.cog bytes='))).toBe(true);
  });
});

describe('an ERA5-Land ingestion with credentials from a Secret', () => {
  it('authenticates with the Secret, rotates longitudes and stores degrees Celsius', async () => {
    const response = await post('/ingestions', {
      dataset_id: 'era5-local',
      start: '2024-01-01T00',
      end: '2024-01-01T23',
    });
    const body = (await response.json()) as { status: string; dataset: { extent: unknown } };
    expect(body.status).toBe('successful');
    expect(body.dataset.extent).toMatchObject({ temporal: { start: '2024-01-01T00', end: '2024-01-01T23' } });
    const meta = (await (await get('/zarr/era5-local/.zmetadata')).json()) as {
      metadata: Record<string, { shape?: number[]; units?: string }>;
    };
    expect(meta.metadata['t2m/.zarray']?.shape).toEqual([24, 32, 34]);
    expect(meta.metadata['time/.zattrs']?.units).toBe('hours since 1970-01-01T00:00:00');
    expect(edh.requests.some((r) => r.includes('/era5-land.zarr/t2m/'))).toBe(true);
    // The Secret reached the worker through its environment, never through the run's input.
    const runs = (await (await get('/ingestions')).json()) as { items: { ingestion_id: string }[] };
    const run = await job(runs.items.find((r) => r.ingestion_id.startsWith('era5-local'))!.ingestion_id);
    expect(JSON.stringify(run)).not.toContain('token-42');
  });

  it('fails with AuthenticationFailed when the Secret holds the wrong password', async () => {
    const response = await post(
      '/ingestions',
      { dataset_id: 'era5-wrong-password', start: '2024-01-01T00', end: '2024-01-01T01' },
      { prefer: 'respond-async' },
    );
    const { ingestion_id: jobID } = (await response.json()) as Accepted;
    const failed = await eventually(
      async () => {
        const record = (await job(jobID)) as Job & { error: { type: string } | null };
        return record.error ? record : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(failed.error).toMatchObject({ type: 'AuthenticationFailed' });
    await fetch(`${url}/ingestions/jobs/${jobID}`, { method: 'DELETE' });
  });
});

describe('Zarr v3', () => {
  it('serves a v3 store that zarrita opens over HTTP, with dimension names and the provider values', async () => {
    await until('sample-v3-february', ['successful']);
    const root = await zarr.open(new zarr.FetchStore(`${url}/zarr/sample-v3/`), { kind: 'group' });
    expect(root.attrs).toMatchObject({ Conventions: 'CF-1.8' });
    const array = await zarr.open(root.resolve('value'), { kind: 'array' });
    expect(array.shape).toEqual([29, 62, 66]);
    const meta = (await (await get('/zarr/sample-v3/value/zarr.json')).json()) as {
      dimension_names: string[];
      codecs: { name: string }[];
    };
    expect(meta.dimension_names).toEqual(['time', 'lat', 'lon']);
    expect(meta.codecs.map((c) => c.name)).toEqual(['bytes', 'zstd']);
    const last = await zarr.get(array, [28, null, null]);
    const session = await sampleProvider.open({
      parameters: { seed: 42 },
      bbox: BBOX,
      signal: new AbortController().signal,
    });
    expect(new Float32Array((last.data as Float32Array).buffer.slice(0))).toEqual(
      await session.read(periodRange('daily', '2024-02-29', '2024-02-29')[0]!),
    );
    const time = await zarr.get(await zarr.open(root.resolve('time'), { kind: 'array' }));
    expect(Number((time.data as BigInt64Array)[0])).toBe(Date.UTC(2024, 1, 1) / 86_400_000);
  });
});

describe('NetCDF download', () => {
  it('serves the NetCDF-4 file of a netcdf dataset, read by ncdump and xarray with the provider values', async () => {
    await until('sample-nc-january', ['successful']);
    const response = await get('/datasets/sample-nc/download');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-netcdf');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="sample-nc.nc"');
    const file = join(dataDir, 'download.nc');
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    const header = await python<{ header: string }>(
      'import json, subprocess, sys\nprint(json.dumps({"header": subprocess.run(["ncdump", "-h", sys.argv[1]], check=True, capture_output=True, text=True).stdout}))',
      [file],
    );
    expect(header.header).toMatch(/time = 31 ;/);
    expect(header.header).toMatch(/float value\(time, lat, lon\)/);
    const valuesFile = join(dataDir, 'nc-values.f32');
    const read = await python<{ shape: number[] }>(
      [
        'import json, sys',
        'import numpy as np, xarray as xr',
        'ds = xr.open_dataset(sys.argv[1], engine="netcdf4")',
        'np.asarray(ds["value"].isel(time=30).values, dtype="<f4").tofile(sys.argv[2])',
        'print(json.dumps({"shape": list(ds["value"].shape)}))',
      ].join('\n'),
      [file, valuesFile],
    );
    expect(read.shape).toEqual([31, 62, 66]);
    const session = await sampleProvider.open({
      parameters: { seed: 42 },
      bbox: BBOX,
      signal: new AbortController().signal,
    });
    const expected = await session.read(periodRange('daily', '2024-01-31', '2024-01-31')[0]!);
    expect(new Float32Array((await readFile(valuesFile)).buffer.slice(0))).toEqual(expected);
  });

  it('refuses other formats with 409, and serves no Zarr for a netcdf dataset', async () => {
    expect((await get('/datasets/sample/download')).status).toBe(409);
    expect((await get('/datasets/nope/download')).status).toBe(404);
    expect((await get('/zarr/sample-nc/.zmetadata')).status).toBe(404);
  });
});

describe('the Zarr store over HTTP', () => {
  it('serves metadata as JSON with validators, conditional requests and byte ranges', async () => {
    const meta = await get('/zarr/sample/.zmetadata');
    expect(meta.status).toBe(200);
    expect(meta.headers.get('content-type')).toMatch(/^application\/json/);
    const etag = meta.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    expect(meta.headers.get('last-modified')).toBeTruthy();
    const text = await meta.text();
    expect(JSON.parse(text).metadata['value/.zarray'].dtype).toBe('<f4');

    expect((await get('/zarr/sample/.zmetadata', { 'if-none-match': etag })).status).toBe(304);
    const range = await get('/zarr/sample/.zmetadata', { range: 'bytes=0-9' });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 0-9/${Buffer.byteLength(text)}`);
    expect(await range.text()).toBe(text.slice(0, 10));
    const suffix = await get('/zarr/sample/.zmetadata', { range: 'bytes=-5' });
    expect(await suffix.text()).toBe(text.slice(-5));
    const past = await get('/zarr/sample/.zmetadata', { range: 'bytes=99999999-' });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${Buffer.byteLength(text)}`);

    const head = await fetch(`${url}/zarr/sample/value/0.0.0`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/octet-stream');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');
  });

  it('answers 404 for missing keys and datasets, 422 for any key escaping the store, and lists directories', async () => {
    expect((await get('/zarr/sample/value/9.9.9')).status).toBe(404);
    expect((await get('/zarr/nope/.zmetadata')).status).toBe(404);
    for (const path of ['/zarr/sample/../../cluster', '/zarr/sample/value/../../../x', '/zarr/sample/a//b'])
      expect(await rawStatus(path)).toBe(422);
    expect(await rawStatus('/zarr/sample/%2e%2e/%2e%2e/x')).toBe(422);
    const listing = (await (await get('/zarr/sample/')).json()) as {
      entries: { name: string; type: string; size?: number }[];
    };
    expect(listing.entries.map((e) => e.name)).toEqual(
      expect.arrayContaining(['.zmetadata', '.zgroup', 'value', 'time', 'lat', 'lon', 'spatial_ref']),
    );
    expect(listing.entries.find((e) => e.name === 'value')).toEqual({ name: 'value', type: 'directory' });
    const sub = (await (await get('/zarr/sample/value/')).json()) as { entries: { name: string }[] };
    expect(sub.entries.map((e) => e.name)).toContain('.zarray');
  });

  it('is opened over HTTP by xarray and by GDAL (/vsicurl/) with the values the provider produced', async () => {
    const dataset = (await (await get('/datasets/sample')).json()) as {
      extent: { temporal: { start: string; end: string } };
    };
    const { start, end } = dataset.extent.temporal;
    const valuesFile = join(dataDir, 'values.f32');
    const view = await python<{
      xarray: { shape: number[]; epsg: number; time: string[] };
      gdal: { size: number[]; epsg: number; first_band_equals_xarray: boolean };
    }>(await readFile(join(root, 'test/interop/zarr-readers.py'), 'utf8'), [
      `${url}/zarr/sample/`,
      'value',
      valuesFile,
    ]);
    const periods = periodRange('daily', start, end);
    const session = await sampleProvider.open({
      parameters: { seed: 42 },
      bbox: BBOX,
      signal: new AbortController().signal,
    });
    const plane = session.grid.lat.length * session.grid.lon.length;
    expect(view.xarray.shape).toEqual([periods.length, session.grid.lat.length, session.grid.lon.length]);
    expect(view.xarray.epsg).toBe(4326);
    expect(view.xarray.time[0]).toBe(`${start}T00:00:00`);
    expect(view.gdal).toMatchObject({ size: view.xarray.shape, epsg: 4326, first_band_equals_xarray: true });
    const read = new Float32Array((await readFile(valuesFile)).buffer.slice(0));
    for (const t of [0, Math.floor(periods.length / 2), periods.length - 1]) {
      const expected = await session.read(periods[t]!);
      expect(read.subarray(t * plane, (t + 1) * plane)).toEqual(expected);
    }
  });
});
