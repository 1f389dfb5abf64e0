import { describe, expect, it } from 'vitest';
import { ingestionKind } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { startAuthApp } from '../../../test/support/auth-app.ts';
import { build } from '../../test/build.ts';
import { publishedDataset } from '../../test/published-dataset.ts';
import { assetUrl } from '../../views/assets.ts';

describe('system routes', () => {
  it('answers the root as RootResponse and openEO capabilities, listing registered endpoints', async () => {
    const { app } = await build();
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    const body = res.json();
    expect(body).toMatchObject({
      api_version: '1.2.0',
      type: 'Catalog',
      title: 'Test instance',
      stac_version: '1.1.0',
    });
    expect(body.links).toEqual(expect.arrayContaining([{ href: '/datasets', rel: 'data', title: 'Managed datasets' }]));
    expect(body.endpoints).toEqual(
      expect.arrayContaining([
        { path: '/datasets/{dataset_id}', methods: ['GET'] },
        { path: '/health', methods: ['GET'] },
      ]),
    );
    expect(body.endpoints.some((e: { path: string }) => e.path.startsWith('/docs') || e.path === '/metrics')).toBe(
      false,
    );
  });

  it('answers the probes the chart sets, /healthz and /readyz, with ok while serving', async () => {
    const { app } = await build();
    for (const url of ['/healthz', '/readyz']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe('ok\n');
    }
  });

  it('answers the landing page as HTML when asked, with the instance name escaped', async () => {
    const { app } = await build('instance.name = <script>alert(1)</script> Land');
    const res = await app.inject({ url: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers.vary).toMatch(/Accept/);
    expect(res.body).toMatch(/^<!doctype html>/);
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Land');
    expect(res.body).not.toContain('<script>alert(1)');
    const forced = await app.inject({ url: '/?f=json', headers: { accept: 'text/html' } });
    expect(forced.headers['content-type']).toMatch(/json/);
  });

  it('shows the datasets with a preview, the latest runs and client snippets with the public URL on the home page', async () => {
    const built = await build('instance.name = Home\nserver.base.url = https://climate.example.org/stratus');
    await publishedDataset(built, 'rain', { thumbnail: true });
    await built.cluster.create(ingestionKind, {
      apiVersion: API_VERSION,
      kind: 'Ingestion',
      metadata: { name: 'rain-2024', namespace: 'default' },
      spec: { source: 'chirps-v3-daily', datasetId: 'rain', mode: 'ingestion', start: '2024-01-01', end: '2024-01-03' },
    });
    const json = await built.app.inject({ url: '/' });
    expect(json.json()).not.toHaveProperty('datasets');
    const res = await built.app.inject({ url: '/', headers: { accept: 'text/html' } });
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.body).toContain('<img class="preview" src="/datasets/rain/thumbnail.png"');
    expect(res.body).toContain('<a href="/datasets/rain">CHIRPS rain</a>');
    expect(res.body).toContain('<span class="mono">2024-01-01 … 2024-01-03</span>');
    expect(res.body).toContain('<a href="/ingestions/jobs/rain-2024">rain-2024</a>');
    expect(res.body).toContain('<td>ingestion</td>');
    expect(res.body).toContain('data-status="accepted"');
    expect(res.body).toContain('open_zarr(&quot;https://climate.example.org/stratus/zarr/rain/&quot;');
    expect(res.body).toContain('openeo.connect(&quot;https://climate.example.org/stratus/&quot;)');
    expect(res.body).toContain('OpenEO.connect(&quot;https://climate.example.org/stratus/&quot;)');
    expect(res.body).toContain('Bearer $TOKEN&quot; &quot;https://climate.example.org/stratus/datasets/rain&quot;');
    expect(res.body).toContain('https://climate.example.org/stratus/datasets/rain/tiles.json');
    expect(res.body).toContain(assetUrl('home.js'));
    expect(res.body).toContain('This instance is open');
    expect(res.body).not.toMatch(/<script(?![^>]*\ssrc=)/);
  });

  it('says who is signed in, and keeps the data from anonymous visitors when anonymous reads are off', async () => {
    const app = await startAuthApp({ config: 'security.anonymous_read = off' });
    await app.addUser('analyst', 'pw');
    const page = (headers: Record<string, string> = {}) =>
      fetch(`${app.url}/`, { headers: { accept: 'text/html', ...headers } }).then((r) => r.text());
    const anonymous = await page();
    expect(anonymous).toContain('<a href="/login?return_to=%2F">Sign in</a>');
    expect(anonymous).toContain('needs a signed-in user');
    expect(anonymous).not.toContain('<h2>Datasets</h2>');
    const signedIn = await page({ authorization: `Basic ${Buffer.from('analyst:pw').toString('base64')}` });
    expect(signedIn).toContain('Signed in as <strong>analyst</strong>');
    expect(signedIn).toContain('<h2>Datasets</h2>');
  });

  it('serves the openEO well-known document at both paths', async () => {
    const { app } = await build('server.base.url = https://climate.example.org/');
    for (const url of ['/.well-known/eo', '/.well-known/openeo']) {
      expect((await app.inject({ url })).json()).toEqual({
        versions: [{ url: 'https://climate.example.org/', production: false, api_version: '1.2.0' }],
      });
    }
  });

  it('reports health, degraded when the resource store fails', async () => {
    const { app, cluster } = await build();
    expect((await app.inject({ url: '/health' })).json()).toEqual({ status: 'healthy' });
    cluster.list = async () => {
      throw new Error('disk gone');
    };
    expect((await app.inject({ url: '/health' })).json()).toEqual({
      status: 'degraded',
      details: { resources: 'resource store unavailable: disk gone' },
    });
  });

  it('answers info and extent from the runtime and the configuration', async () => {
    const { app } = await build('instance.name = SL\ninstance.bbox = -13.5,6.9,-10.2,10.0\nread_only = on');
    const info = (await app.inject({ url: '/info' })).json();
    expect(info).toMatchObject({ app_version: '0.1.0', read_only: true, node_version: process.versions.node });
    expect(info.python_version).toBe(`node ${process.versions.node}`);
    expect(info.uvicorn_version).toMatch(/^fastify 5\./);
    expect((await app.inject({ url: '/extent' })).json()).toEqual({
      name: 'SL',
      description: null,
      bbox: [-13.5, 6.9, -10.2, 10],
    });
  });
});

describe('health probe cache', () => {
  it('answers repeated health checks from one store probe within the cache window', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { Registry } = await import('prom-client');
    const { openEmbeddedCluster } = await import('../../../core/cluster/embedded/index.ts');
    const { parseInstanceConfig } = await import('../../../core/config/index.ts');
    const { buildApp } = await import('../../app.ts');
    const dataDir = await mkdtemp(join(tmpdir(), 'stratus-health-'));
    const cluster = await openEmbeddedCluster({ dataDir });
    let probes = 0;
    const list = cluster.list.bind(cluster);
    cluster.list = (async (...args: Parameters<typeof list>) => {
      probes++;
      return list(...args);
    }) as typeof cluster.list;
    const app = await buildApp({
      cluster,
      config: parseInstanceConfig('', 't'),
      registry: new Registry(),
      healthCacheMs: 60_000,
      storageRoot: join(dataDir, 'store'),
    });
    // The app's own watch of Datasets (for /zarr) lists them once at start: that is no health probe.
    probes = 0;
    for (let i = 0; i < 5; i++) expect((await app.inject({ url: '/health' })).json()).toEqual({ status: 'healthy' });
    expect(probes).toBe(1);
    await app.close();
    await cluster.close();
    await rm(dataDir, { recursive: true, force: true });
  });
});
