import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ApiError } from '../../../core/cluster/errors.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { parseInstanceConfig } from '../../../core/config/index.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { slowWatchCluster } from '../../../test/support/slow-watch.ts';
import { buildApp } from '../../app.ts';
import { byName, newestFirst, sortForPaging } from '../../pagination.ts';
import { ResourceCaches } from './resource-caches.ts';

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

  it.each([
    ['a few changes, each moved into place', 5],
    ['more changes than are moved one by one, by a new sort', 80],
  ])('keep each order through %s, as a new sort would, never changing an array they answered', async (_, count) => {
    // The embedded store's own watch, prompt: every list below answers from the cache, none falls back to the store.
    const { embedded: cluster } = await slowWatchCluster(WATCH_DELAY_MS);
    const caches = new ResourceCaches({ cluster, namespace: 'default', logger: pino({ level: 'silent' }) });
    onTestFinished(() => caches.stop());
    const datasets = caches.of<Dataset>(datasetKind);
    const write = caches.cluster;
    const dataset = (name: string) => ({
      apiVersion: API_VERSION,
      kind: 'Dataset',
      metadata: { name, namespace: 'default' },
      spec: { source: 'sample', datasetName: name, itemType: 'coverage', format: 'zarr' },
    });
    const names = (items: readonly Dataset[]) => items.map((d) => d.metadata.name);
    for (const name of ['m', 'c', 'x', 'a', 'q']) await write.create(datasetKind, dataset(name));
    const before = { byName: await datasets.list(byName), newest: await datasets.list(newestFirst) };
    const seen = { byName: names(before.byName), newest: names(before.newest) };

    await Promise.all([
      write.delete(datasetKind, 'c', 'default'),
      write.patchStatus(datasetKind, 'x', { type: 'merge', body: { status: { lastUpdated: '2026-01-01' } } }),
      ...Array.from({ length: count }, (_, i) => write.create(datasetKind, dataset(`n${String(i).padStart(3, '0')}`))),
    ]);
    await write.delete(datasetKind, 'n000', 'default');
    await write.create(datasetKind, dataset('n000'));

    const { items } = await cluster.list<Dataset>(datasetKind, { namespace: 'default' });
    const after = { byName: await datasets.list(byName), newest: await datasets.list(newestFirst) };
    expect(names(after.byName)).toEqual(names(sortForPaging<Dataset>([...items], byName)));
    expect(names(after.newest)).toEqual(names(sortForPaging<Dataset>([...items], newestFirst)));
    expect(after.byName.find((d) => d.metadata.name === 'x')?.status?.lastUpdated).toBe('2026-01-01');
    expect({ byName: names(before.byName), newest: names(before.newest) }).toEqual(seen);
  });
});

describe('reads through the caches', () => {
  const dataset = (name: string, datasetName = name) => ({
    apiVersion: API_VERSION,
    kind: 'Dataset',
    metadata: { name, namespace: 'default' },
    spec: { source: 'sample', datasetName, itemType: 'coverage', format: 'zarr' },
  });

  it("answer gets from the cache, see this process's writes at once, and ask the store for what it lacks", async () => {
    const { cluster, embedded } = await slowWatchCluster(WATCH_DELAY_MS);
    let gets = 0;
    const counting = new Proxy(cluster, {
      get(target, property) {
        if (property === 'get') return (...args: Parameters<Cluster['get']>) => (gets++, target.get(...args));
        return Reflect.get(target, property);
      },
    });
    const caches = new ResourceCaches({ cluster: counting, namespace: 'default', logger: pino({ level: 'silent' }) });
    onTestFinished(() => caches.stop());
    const reads = caches.readingThrough([datasetKind]);

    await caches.cluster.create(datasetKind, dataset('mine'));
    // Written through the API server's port: the read waits for the late watch instead of missing it.
    expect((await reads.get(datasetKind, 'mine', 'default'))?.metadata.name).toBe('mine');
    const afterFirst = gets;
    for (let i = 0; i < 5; i++) expect(await reads.get(datasetKind, 'mine', 'default')).toBeDefined();
    expect(gets).toBe(afterFirst);

    // Created by another writer a moment ago: not in the cache yet, so the store answers.
    await embedded.create(datasetKind, dataset('theirs'));
    expect((await reads.get(datasetKind, 'theirs', 'default'))?.metadata.name).toBe('theirs');
    expect(gets).toBe(afterFirst + 1);

    // Changed by another writer: the cache's copy until the watch brings the change, as on any informer.
    await embedded.patch(datasetKind, 'mine', { type: 'merge', body: { spec: { datasetName: 'Renamed' } } }, 'default');
    expect((await reads.get<ReturnType<typeof dataset>>(datasetKind, 'mine', 'default'))?.spec.datasetName).toBe(
      'mine',
    );
    // The slow watch delays each event in turn, so the change comes one delay after the create before it: waited
    // for, not slept on, since a loaded machine fires those timers late.
    const nameOfMine = async () =>
      (await reads.get<ReturnType<typeof dataset>>(datasetKind, 'mine', 'default'))?.spec.datasetName;
    const deadline = Date.now() + 20 * WATCH_DELAY_MS;
    while ((await nameOfMine()) !== 'Renamed' && Date.now() < deadline) await sleep(10);
    expect(await nameOfMine()).toBe('Renamed');
    expect((await reads.list(datasetKind, { namespace: 'default' })).items.map((d) => d.metadata.name)).toEqual([
      'mine',
      'theirs',
    ]);
    // Other namespaces and label selectors are not cached: the store answers them.
    expect(await reads.get(datasetKind, 'mine', 'elsewhere')).toBeUndefined();
    expect(gets).toBe(afterFirst + 2);
  });
});
