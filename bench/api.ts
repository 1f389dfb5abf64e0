/**
 * API server throughput with autocannon, side by side with a bare `node:http` server that answers the same
 * bytes from memory: the ratio is what fastify, routing, negotiation, logging and the store read cost.
 */
import autocannon from 'autocannon';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { buildApp } from '../api-server/app.ts';
import { openEmbeddedCluster } from '../core/cluster/embedded/index.ts';
import { parseInstanceConfig } from '../core/config/index.ts';
import { datasetKind } from '../core/resources/dataset/schema.ts';
import { API_VERSION } from '../core/resources/registry.ts';

export interface EndpointFigures {
  path: string;
  stratusRequestsPerSecond: number;
  peerRequestsPerSecond: number;
  stratusLatencyP99Ms: number;
}

async function load(url: string, seconds: number): Promise<autocannon.Result> {
  return autocannon({ url, connections: 16, duration: seconds, pipelining: 1 });
}

async function peerServer(bodies: Map<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(body ?? '{"detail":"Not Found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function benchApi(datasets = 50, seconds = 10): Promise<EndpointFigures[]> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-api-'));
  const cluster = await openEmbeddedCluster({ dataDir: root });
  try {
    for (let i = 0; i < datasets; i++) {
      await cluster.create(datasetKind, {
        apiVersion: API_VERSION,
        kind: 'Dataset',
        metadata: { name: `dataset-${i}`, namespace: 'default' },
        spec: { source: 'sample', datasetName: `Sample dataset ${i}`, itemType: 'coverage', format: 'zarr' },
      });
    }
    const config = parseInstanceConfig('instance.name = Bench\ninstance.bbox = -13.5,6.9,-10.2,10.0\n', 'bench');
    const app = await buildApp({
      cluster,
      config,
      registry: new Registry(),
      logger: false,
      storageRoot: join(root, 'store'),
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });

    const paths = ['/health', '/datasets'];
    const bodies = new Map<string, string>();
    for (const path of paths) bodies.set(path, (await app.inject({ url: path })).body);
    const peer = await peerServer(bodies);

    const figures: EndpointFigures[] = [];
    for (const path of paths) {
      const stratus = await load(`${address}${path}`, seconds);
      const bare = await load(`${peer.url}${path}`, seconds);
      if (stratus.non2xx > 0) throw new Error(`${path}: ${stratus.non2xx} non-2xx answers from Stratus`);
      figures.push({
        path,
        stratusRequestsPerSecond: stratus.requests.average,
        peerRequestsPerSecond: bare.requests.average,
        stratusLatencyP99Ms: stratus.latency.p99,
      });
    }
    await peer.close();
    await app.close();
    return figures;
  } finally {
    await cluster.close();
    await rm(root, { recursive: true, force: true });
  }
}
