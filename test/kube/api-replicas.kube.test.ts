/**
 * Replicas: two `stratus api-server` processes over one Kubernetes API server and one store, behind a
 * round-robin proxy as behind a Service, answer every read identically, and a dataset's switch to a new version
 * while reads are running is never seen half-done: each read answers the old version's bytes or the new one's,
 * and once both processes have seen the switch, only the new one's.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { periodRange } from '../../core/periods/index.ts';
import { gridCovering } from '../../core/stores/raster-grid.ts';
import { datasetKind } from '../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../core/resources/kind.ts';
import { versionPath } from '../../core/stores/layout.ts';
import { RasterCubeWriter } from '../../core/stores/raster-cube.ts';
import { startApiServerProcess, type ApiProcess } from '../support/api-process.ts';
import { eventually } from '../support/eventually.ts';
import { installRelease, type KubeRelease } from '../support/kube-release.ts';

const CHUNK = '/zarr/rain/precip/0.0.0';

/** A reverse proxy that sends each request to the next upstream in turn, Host header and all. */
async function roundRobin(upstreams: string[]): Promise<{ url: string; server: Server }> {
  let next = 0;
  const server = createServer((req, res) => {
    const target = new URL(upstreams[next++ % upstreams.length]!);
    const forwarded = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', (err) => res.destroy(err));
    req.pipe(forwarded);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function body(url: string): Promise<{ status: number; bytes: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('two API server replicas over one cluster and one store', () => {
  const adminKubeconfig = inject('kubeconfig');
  const admin = openKubernetesCluster({ kubeconfig: adminKubeconfig });
  let release: KubeRelease;
  let workNamespace: string;
  let dir: string;
  let replicas: ApiProcess[] = [];
  let proxy: { url: string; server: Server };
  const chunkOf: Record<string, Buffer> = {};

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-kube-replicas-'));
    release = await installRelease(admin, adminKubeconfig, 'rep');
    workNamespace = release.workNamespace;
    await writeFile(join(dir, 'stratus.properties'), 'instance.name = Replicas\n');
    // Two versions of one dataset, whose values differ, so that their chunks do.
    const grid = gridCovering([-13.5, 6.9, -10.2, 10.0], 0.5);
    const periods = periodRange('daily', '2024-01-01', '2024-01-03');
    for (const [version, value] of [
      ['v1', 1],
      ['v2', 2],
    ] as const) {
      const path = join(dir, versionPath('rain', version));
      const writer = await RasterCubeWriter.create(path, {
        variable: 'precip',
        units: 'mm',
        periodType: 'daily',
        periods,
        grid,
        attributes: {},
      });
      for (let i = 0; i < periods.length; i++)
        await writer.append(new Float32Array(grid.lat.length * grid.lon.length).fill(value + i));
      await writer.finish();
      chunkOf[version] = await readFile(join(path, 'precip/0.0.0'));
    }
    expect(chunkOf.v1!.equals(chunkOf.v2!)).toBe(false);
    await admin.create(datasetKind, {
      apiVersion: API_VERSION,
      kind: 'Dataset',
      metadata: { name: 'rain', namespace: workNamespace },
      spec: { source: 'rain', datasetName: 'Rain', periodType: 'daily', variable: 'precip', format: 'zarr' },
    });
    await switchTo('v1');
    const env = {
      KUBECONFIG: release.apiServerKubeconfig,
      WATCH_NAMESPACE: workNamespace,
      STRATUS_CONFIG: join(dir, 'stratus.properties'),
      STRATUS_STORE_PATH: dir,
    };
    replicas = await Promise.all([startApiServerProcess(env), startApiServerProcess(env)]);
    proxy = await roundRobin(replicas.map((r) => r.url));
  }, 90_000);

  afterAll(async () => {
    await new Promise((done) => proxy?.server.close(done));
    await Promise.all(replicas.map((r) => r.stop()));
    await release?.remove();
    await rm(dir, { recursive: true, force: true });
  });

  /** Serves `version` of the dataset, as a finished run does: one status write. */
  async function switchTo(version: 'v1' | 'v2') {
    const coverage = {
      spatial: { xmin: -13.5, ymin: 6.9, xmax: -10.2, ymax: 10 },
      temporal: { start: '2024-01-01', end: '2024-01-03' },
    };
    const entry = (id: string) => ({
      id,
      createdAt: '2024-01-04T00:00:00Z',
      format: 'zarr',
      coverage,
      path: versionPath('rain', id),
    });
    await admin.patchStatus(
      datasetKind,
      'rain',
      {
        type: 'merge',
        body: {
          status: {
            extent: coverage,
            publication: { status: 'published', publishedAt: '2024-01-04T00:00:00Z' },
            currentVersion: version,
            versions: version === 'v1' ? [entry('v1')] : [entry('v1'), entry('v2')],
          },
        },
      },
      workNamespace,
    );
  }

  it('answer every read alike, whichever replica the proxy picks', async () => {
    for (const path of [
      '/datasets',
      '/datasets/rain',
      '/collections',
      '/collections/rain',
      '/zarr/rain/.zmetadata',
      CHUNK,
    ]) {
      // Each replica answers once its cache has the dataset; then two reads in a row come from one each.
      const [a, b] = await eventually(
        async () => {
          const pair = [await body(`${proxy.url}${path}`), await body(`${proxy.url}${path}`)];
          return pair.every((r) => r.status === 200) ? pair : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      );
      expect(a!.bytes.equals(b!.bytes), path).toBe(true);
    }
    expect((await body(`${proxy.url}${CHUNK}`)).bytes.equals(chunkOf.v1!)).toBe(true);
  });

  it('switches versions under running reads without a read of anything but the old or the new version', async () => {
    const seen: string[] = [];
    let stop = false;
    const reader = (async () => {
      while (!stop) {
        const { status, bytes } = await body(`${proxy.url}${CHUNK}`);
        seen.push(
          status !== 200
            ? `status ${status}`
            : bytes.equals(chunkOf.v1!)
              ? 'v1'
              : bytes.equals(chunkOf.v2!)
                ? 'v2'
                : 'other',
        );
      }
    })();
    await eventually(async () => (seen.length > 20 ? true : undefined), { timeoutMs: 10_000, intervalMs: 50 });
    await switchTo('v2');
    // Both replicas have switched once twenty reads in a row, alternating between them, answer v2.
    await eventually(async () => (seen.length > 20 && seen.slice(-20).every((v) => v === 'v2') ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    stop = true;
    await reader;
    expect(seen.filter((v) => v !== 'v1' && v !== 'v2')).toEqual([]);
    expect(seen.indexOf('v2')).toBeGreaterThan(0);
    // The proxy alternates, so reads i and i + 2 come from one replica: once it has served v2, never v1 again.
    for (const replica of [0, 1]) {
      const own = seen.filter((_, i) => i % 2 === replica);
      const first = own.indexOf('v2');
      expect(own.slice(first).includes('v1'), `replica ${replica}`).toBe(false);
    }
    const [a, b] = [await body(`${proxy.url}/datasets/rain`), await body(`${proxy.url}/datasets/rain`)];
    expect(a.bytes.equals(b.bytes)).toBe(true);
  });
});
