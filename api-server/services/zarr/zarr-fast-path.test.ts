/**
 * The `/zarr` fast path against the route it stands in for: two apps over the same resource store and files, one
 * with the fast path and one without, must give the same status, headers and bytes for every kind of request,
 * while the fast one answers existing keys past fastify, records them in the metrics and logs them the same way.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedCluster } from '../../../core/cluster/embedded/index.ts';
import { parseInstanceConfig } from '../../../core/config/index.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { buildApp } from '../../app.ts';
import { rawStatus } from '../../../test/support/raw-request.ts';

const VARYING = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

function versionStatus(id: string) {
  return {
    status: {
      currentVersion: id,
      versions: [
        {
          id,
          createdAt: new Date().toISOString(),
          format: 'zarr',
          path: `datasets/cube/versions/${id}`,
          coverage: { spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 }, temporal: { start: null, end: null } },
        },
      ],
    },
  };
}

async function answer(base: string, path: string, headers: Record<string, string> = {}, method = 'GET') {
  const response = await fetch(`${base}${path}`, { method, headers });
  const body = Buffer.from(await response.arrayBuffer());
  const kept = [...response.headers].filter(([name]) => !VARYING.has(name));
  return { status: response.status, headers: Object.fromEntries(kept), body: body.toString('base64') };
}

describe('the /zarr fast path', () => {
  let root: string;
  let cluster: Awaited<ReturnType<typeof openEmbeddedCluster>>;
  let fast: Awaited<ReturnType<typeof buildApp>>;
  let general: Awaited<ReturnType<typeof buildApp>>;
  let fastUrl: string;
  let generalUrl: string;
  const logLines: Record<string, unknown>[] = [];
  let fastifyRequests = 0;
  const registry = new Registry();

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-fast-path-'));
    for (const version of ['v1', 'v2']) {
      const dir = join(root, 'store/datasets/cube/versions', version);
      await mkdir(join(dir, 'value'), { recursive: true });
      await writeFile(join(dir, '.zmetadata'), JSON.stringify({ version }));
      await writeFile(join(dir, 'value/0.0.0'), Buffer.alloc(4096, version === 'v1' ? 1 : 2));
      await writeFile(join(dir, 'value/1.0.0'), Buffer.alloc(3 << 20, 3)); // above the in-memory size: streamed
    }
    cluster = await openEmbeddedCluster({ dataDir: join(root, 'cluster') });
    await cluster.create(datasetKind, {
      apiVersion: API_VERSION,
      kind: 'Dataset',
      metadata: { name: 'cube', namespace: 'default' },
      spec: { source: 'sample', datasetName: 'Cube', itemType: 'coverage', format: 'zarr' },
    });
    await cluster.patchStatus(datasetKind, 'cube', { type: 'merge', body: versionStatus('v1') }, 'default');
    const config = parseInstanceConfig('instance.name = Fast', 'fast');
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
          done();
        },
      }),
    );
    fast = await buildApp({ cluster, config, registry, logger, storageRoot: join(root, 'store') });
    fast.addHook('onRequest', async () => {
      fastifyRequests++;
    });
    general = await buildApp({
      cluster,
      config,
      registry: new Registry(),
      logger: false,
      storageRoot: join(root, 'store'),
      zarrFastPath: false,
    });
    fastUrl = await fast.listen({ port: 0, host: '127.0.0.1' });
    generalUrl = await general.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await fast?.close();
    await general?.close();
    await cluster?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('answers every kind of request as the route does: bytes, validators, ranges, errors, listings, CORS', async () => {
    const { headers } = await answer(generalUrl, '/zarr/cube/value/0.0.0');
    const etag = headers.etag!;
    const lastModified = headers['last-modified']!;
    const cases: [string, Record<string, string>?, string?][] = [
      ['/zarr/cube/value/0.0.0'],
      ['/zarr/cube/value/0.0.0', {}, 'HEAD'],
      ['/zarr/cube/.zmetadata'],
      ['/zarr/cube/value/1.0.0'],
      ['/zarr/cube/value/1.0.0', { range: 'bytes=100-199' }],
      ['/zarr/cube/value/0.0.0', { range: 'bytes=10-19' }],
      ['/zarr/cube/value/0.0.0', { range: 'bytes=-5' }],
      ['/zarr/cube/value/0.0.0', { range: 'bytes=5000-' }],
      ['/zarr/cube/value/0.0.0', { 'if-none-match': etag }],
      ['/zarr/cube/value/0.0.0', { 'if-modified-since': lastModified }],
      ['/zarr/cube/value/0.0.0', { 'if-range': '"stale"', range: 'bytes=0-9' }],
      ['/zarr/cube/value/0.0.0', { 'x-request-id': 'abc123' }],
      ['/zarr/cube/value/0.0.0', { origin: 'https://viewer.example' }],
      ['/zarr/cube/value/9.9.9'],
      ['/zarr/cube/value/'],
      ['/zarr/cube/value'],
      ['/zarr/cube/value/0.0.0?x=1'],
      ['/zarr/cube/value%2F0.0.0'],
      ['/zarr/nothing/value/0.0.0'],
      ['/zarr/Cube/value/0.0.0'],
    ];
    for (const [path, requestHeaders, method] of cases) {
      const label = `${method ?? 'GET'} ${path} ${JSON.stringify(requestHeaders ?? {})}`;
      expect(await answer(fastUrl, path, requestHeaders, method), label).toEqual(
        await answer(generalUrl, path, requestHeaders, method),
      );
    }
    // The paths no fetch can send as they stand (dot segments, encoded ones) get the same refusal from both.
    for (const path of ['/zarr/cube/../../../etc/passwd', '/zarr/cube/value/../../v2/.zmetadata'])
      expect(await rawStatus(fastUrl, path), path).toBe(await rawStatus(generalUrl, path));
  });

  it('answers existing keys past fastify, and leaves everything else to it', async () => {
    const before = fastifyRequests;
    for (let i = 0; i < 5; i++) expect((await answer(fastUrl, '/zarr/cube/value/0.0.0')).status).toBe(200);
    expect(fastifyRequests).toBe(before);
    expect((await answer(fastUrl, '/zarr/cube/value/9.9.9')).status).toBe(404);
    expect((await answer(fastUrl, '/zarr/cube/value/0.0.0', { origin: 'https://viewer.example' })).status).toBe(200);
    expect(fastifyRequests).toBe(before + 2);
  });

  it('serves a new version as soon as it is the current one', async () => {
    expect((await answer(fastUrl, '/zarr/cube/value/0.0.0')).body).toBe(Buffer.alloc(4096, 1).toString('base64'));
    await cluster.patchStatus(datasetKind, 'cube', { type: 'merge', body: versionStatus('v2') }, 'default');
    const switched = await answer(fastUrl, '/zarr/cube/value/0.0.0');
    expect(switched.body).toBe(Buffer.alloc(4096, 2).toString('base64'));
    expect(switched.headers.etag).toMatch(/^"v2-/);
  });

  it('answers a retained version named in the path past fastify, with the bytes and validators of the route', async () => {
    const version = (id: string) => versionStatus(id).status.versions[0]!;
    const both = { status: { currentVersion: 'v2', versions: [version('v1'), version('v2')] } };
    await cluster.patchStatus(datasetKind, 'cube', { type: 'merge', body: both }, 'default');
    const path = '/zarr/cube@v1/value/0.0.0';
    const routed = await answer(generalUrl, path);
    await answer(fastUrl, path); // the first read fills the file cache
    const before = fastifyRequests;
    const read = await answer(fastUrl, path);
    expect(fastifyRequests).toBe(before);
    expect(read).toEqual(routed);
    expect(read.body).toBe(Buffer.alloc(4096, 1).toString('base64'));
    expect(read.headers.etag).toMatch(/^"v1-/);
    for (const other of ['/zarr/cube@v1/value/1.0.0', '/zarr/cube@v9/value/0.0.0', '/zarr/cube@v1/value/9.9.9'])
      expect(await answer(fastUrl, other), other).toEqual(await answer(generalUrl, other));
  });

  it('records its answers in the request metrics and logs them like fastify does, with the request id', async () => {
    const count = async () => {
      const metric = (await registry.getSingleMetric('http_request_duration_seconds')!.get()).values.find(
        (v: { metricName?: string; labels: Record<string, string | number | undefined> }) =>
          v.metricName === 'http_request_duration_seconds_count' &&
          v.labels.route === '/zarr/:dataset_id/*' &&
          v.labels.status_code === '200' &&
          v.labels.method === 'GET',
      );
      return metric?.value ?? 0;
    };
    const before = await count();
    logLines.length = 0;
    await answer(fastUrl, '/zarr/cube/value/0.0.0', { 'x-request-id': 'fast42' });
    expect(await count()).toBe(before + 1);
    const lines = logLines.filter((line) => line.xRequestID === 'fast42');
    expect(lines.map((line) => line.msg)).toEqual(['request completed']);
    expect(lines[0]).toMatchObject({ req: { method: 'GET', url: '/zarr/cube/value/0.0.0' }, sessionId: '' });
    expect(lines[0]).toMatchObject({ reqId: 'fast42', res: { statusCode: 200 } });
    expect(typeof lines[0]!.responseTime).toBe('number');
    // fastify's line for the same key (a cross-origin request is its to answer) has the same fields.
    await answer(fastUrl, '/zarr/cube/value/0.0.0', { 'x-request-id': 'slow42', origin: 'https://viewer.example' });
    const slow = logLines.filter((line) => line.xRequestID === 'slow42');
    expect(slow.map((line) => line.msg)).toEqual(['request completed']);
    const shape = (line: Record<string, unknown>) => [Object.keys(line).sort(), Object.keys(line.req as object).sort()];
    expect(shape(lines[0]!)).toEqual(shape(slow[0]!));
  });
});
