import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ApiError } from '../../../core/cluster/errors.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { parseInstanceConfig } from '../../../core/config/index.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { slowWatchCluster } from '../../../test/support/slow-watch.ts';
import { buildApp } from '../../app.ts';

const WATCH_DELAY_MS = 400;

async function appOver(cluster: Cluster, dataDir: string) {
  const app = await buildApp({
    cluster,
    config: parseInstanceConfig('instance.name = Test\ninstance.bbox = -13.5,6.9,-10.2,10.0', 'test'),
    registry: new Registry(),
    logger: false,
    storageRoot: join(dataDir, 'store'),
  });
  onTestFinished(() => app.close());
  return app;
}

const graph = { one: { process_id: 'add', arguments: { x: 1, y: 2 }, result: true } };

describe('list routes read informer caches', () => {
  it("see the API server's own writes at once although the watch delivers them late", async () => {
    const { cluster, dataDir } = await slowWatchCluster(WATCH_DELAY_MS);
    const app = await appOver(cluster, dataDir);
    expect((await app.inject({ url: '/process_graphs' })).json().processes).toEqual([]);
    expect((await app.inject({ url: '/jobs' })).json().jobs).toEqual([]);

    const started = Date.now();
    const put = await app.inject({ method: 'PUT', url: '/process_graphs/three', payload: { process_graph: graph } });
    expect(put.statusCode).toBe(200);
    expect((await app.inject({ url: '/process_graphs' })).json().processes).toEqual([
      expect.objectContaining({ id: 'three' }),
    ]);
    const created = await app.inject({ method: 'POST', url: '/jobs', payload: { process: { process_graph: graph } } });
    expect(created.statusCode).toBe(201);
    expect((await app.inject({ url: '/jobs' })).json().jobs).toEqual([
      expect.objectContaining({ id: created.headers['openeo-identifier'] }),
    ]);
    const deleted = await app.inject({ method: 'DELETE', url: '/process_graphs/three' });
    expect(deleted.statusCode).toBe(204);
    expect((await app.inject({ url: '/process_graphs' })).json().processes).toEqual([]);
    // Each read waited for the watch (one delay per event), not for the fallback to a direct list (2 s).
    expect(Date.now() - started).toBeLessThan(6 * WATCH_DELAY_MS + 1_500);
  });

  it("show another writer's changes once the watch delivers them, without listing the cluster per request", async () => {
    const { cluster, embedded, dataDir } = await slowWatchCluster(WATCH_DELAY_MS);
    let lists = 0;
    const counting = new Proxy(cluster, {
      get(target, property) {
        if (property === 'list') return (...args: Parameters<Cluster['list']>) => (lists++, target.list(...args));
        return Reflect.get(target, property);
      },
    });
    const app = await appOver(counting, dataDir);
    expect((await app.inject({ url: '/datasets' })).json().items).toEqual([]);
    await embedded.create(datasetKind, {
      apiVersion: API_VERSION,
      kind: 'Dataset',
      metadata: { name: 'elsewhere', namespace: 'default' },
      spec: { source: 'sample', datasetName: 'Elsewhere', itemType: 'coverage', format: 'zarr' },
    });
    // Written by another process (not through the API server): the list follows the watch.
    expect((await app.inject({ url: '/datasets' })).json().items).toEqual([]);
    await sleep(WATCH_DELAY_MS * 2);
    expect((await app.inject({ url: '/datasets' })).json().items).toEqual([
      expect.objectContaining({ dataset_id: 'elsewhere' }),
    ]);
    const before = lists;
    for (let i = 0; i < 5; i++) await app.inject({ url: '/datasets?limit=1' });
    expect(lists).toBe(before);
  });

  it('answer 503 from a store that cannot list, instead of waiting for the first list without end', async () => {
    const { cluster, dataDir } = await slowWatchCluster(WATCH_DELAY_MS);
    const down = new Proxy(cluster, {
      get(target, property) {
        if (property === 'list') return () => Promise.reject(new ApiError('InternalError', 'etcd is down'));
        return Reflect.get(target, property);
      },
    });
    const app = await appOver(down, dataDir);
    const response = await app.inject({ url: '/datasets' });
    expect([response.statusCode, response.json()]).toEqual([503, { detail: 'The resource store is unavailable.' }]);
  });
});
