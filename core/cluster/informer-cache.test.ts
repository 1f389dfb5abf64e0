import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { slowWatchCluster } from '../../test/support/slow-watch.ts';
import { ingestionKind, type Ingestion } from '../resources/ingestion/schema.ts';
import { API_VERSION } from '../resources/kind.ts';
import { InformerCaches } from './informer-caches.ts';
import type { Cluster } from './port.ts';

const WATCH_DELAY_MS = 200;
const LABEL = 'climate.stratus.dev/dataset';

const run = (name: string, dataset: string, namespace = 'default'): Ingestion =>
  ({
    apiVersion: API_VERSION,
    kind: ingestionKind.kind,
    metadata: { name, namespace, labels: { [LABEL]: dataset } },
    spec: { source: 'sample', datasetId: dataset, mode: 'ingestion' },
  }) as unknown as Ingestion;

const byDataset = (object: Ingestion) => [
  `${object.metadata.namespace}/${(object.metadata.labels as Record<string, string>)[LABEL]}`,
];

function cachesOver(cluster: Cluster, namespaces?: string[]) {
  const caches = new InformerCaches({ cluster, namespaces, logger: pino({ level: 'silent' }) });
  onTestFinished(() => caches.stop());
  const cache = caches.of<Ingestion>(ingestionKind, 'default');
  cache.addIndex('dataset', byDataset);
  return { caches, cache };
}

const names = (objects: readonly Ingestion[]) => objects.map((o) => o.metadata.name).sort();

describe('an informer cache', () => {
  it('indexes what it lists and watches, and follows relabelled and deleted objects', async () => {
    const { cluster, embedded } = await slowWatchCluster(0);
    await embedded.create(ingestionKind, run('a-1', 'a'));
    await embedded.create(ingestionKind, run('b-1', 'b', 'other'));
    const { cache } = cachesOver(cluster);
    await cache.start();
    expect([names(cache.byIndex('dataset', 'default/a')), names(cache.byIndex('dataset', 'other/b'))]).toEqual([
      ['a-1'],
      ['b-1'],
    ]);
    await embedded.create(ingestionKind, run('a-2', 'a'));
    await embedded.patch(ingestionKind, 'a-1', { type: 'merge', body: { metadata: { labels: { [LABEL]: 'c' } } } });
    await embedded.delete(ingestionKind, 'b-1', 'other');
    await expect.poll(() => names(cache.byIndex('dataset', 'default/a'))).toEqual(['a-2']);
    await expect.poll(() => names(cache.byIndex('dataset', 'default/c'))).toEqual(['a-1']);
    await expect.poll(() => cache.byIndex('dataset', 'other/b')).toEqual([]);
  });

  it('tells subscribers of an object only once its index holds it, and a late subscriber of what it holds', async () => {
    const { cluster, embedded } = await slowWatchCluster(0);
    await embedded.create(ingestionKind, run('a-1', 'a'));
    const { cache } = cachesOver(cluster);
    const seen: string[][] = [];
    cache.subscribe((objects) => objects.forEach((o) => seen.push(names(cache.byIndex('dataset', byDataset(o)[0]!)))));
    await cache.start();
    await embedded.create(ingestionKind, run('a-2', 'a'));
    await expect.poll(() => seen).toEqual([['a-1'], ['a-1', 'a-2']]);
    const late: string[] = [];
    cache.subscribe((objects) => late.push(...names(objects)));
    expect(late).toEqual(['a-1', 'a-2']);
  });

  it("catches up with this process's writes although the watch delivers them late", async () => {
    const { cluster } = await slowWatchCluster(WATCH_DELAY_MS);
    const { caches, cache } = cachesOver(cluster);
    expect(await cache.catchUp(2_000)).toBe(true);
    const started = Date.now();
    await caches.cluster.create(ingestionKind, run('a-1', 'a'));
    expect(await cache.catchUp(2_000)).toBe(true);
    expect(names(cache.byIndex('dataset', 'default/a'))).toEqual(['a-1']);
    await caches.cluster.delete(ingestionKind, 'a-1', 'default');
    expect(await cache.catchUp(2_000)).toBe(true);
    expect(cache.byIndex('dataset', 'default/a')).toEqual([]);
    // Each wait was for the watch (one delay per event), not for the timeout.
    expect(Date.now() - started).toBeLessThan(2 * WATCH_DELAY_MS + 1_000);
  });

  it("forgets each of this process's writes once the watch delivers it, whether or not anybody reads", async () => {
    const { cluster, embedded } = await slowWatchCluster(WATCH_DELAY_MS);
    // Late events (as from a remote API server), and events delivered before the write returns (the embedded store).
    for (const { cache, caches } of [cachesOver(cluster), cachesOver(embedded)]) {
      await cache.start();
      for (let i = 0; i < 3; i++) {
        const created = await caches.cluster.create(ingestionKind, run(`r-${i}`, 'a'));
        await caches.cluster.delete(ingestionKind, created.metadata.name, 'default');
      }
      const last = await caches.cluster.create(ingestionKind, run('last', 'a'));
      while (cache.version < Number(last.metadata.resourceVersion)) await sleep(10);
      expect(cache.awaited).toBe(0);
      await caches.cluster.delete(ingestionKind, 'last', 'default');
    }
  });

  it('does not wait for writes made past its port, and says when it cannot catch up in time', async () => {
    const { cluster, embedded } = await slowWatchCluster(WATCH_DELAY_MS);
    const { caches, cache } = cachesOver(cluster);
    await cache.start();
    // Another writer's run: the cache sees it when the watch delivers it, and reads in between do not wait.
    await embedded.create(ingestionKind, run('a-1', 'a'));
    expect(await cache.catchUp(2_000)).toBe(true);
    expect(cache.byIndex('dataset', 'default/a')).toEqual([]);
    await caches.cluster.create(ingestionKind, run('a-2', 'a'));
    expect(await cache.catchUp(WATCH_DELAY_MS / 10)).toBe(false);
  });

  it('keeps one cache per namespace when told the namespaces, else one for all', async () => {
    const { cluster } = await slowWatchCluster(0);
    const perNamespace = new InformerCaches({ cluster, namespaces: ['a', 'b'], logger: pino({ level: 'silent' }) });
    const all = new InformerCaches({ cluster, logger: pino({ level: 'silent' }) });
    expect(perNamespace.of(ingestionKind, 'a')).not.toBe(perNamespace.of(ingestionKind, 'b'));
    expect(all.of(ingestionKind, 'a')).toBe(all.of(ingestionKind, 'b'));
    expect([perNamespace.namespaces, all.namespaces]).toEqual([['a', 'b'], [undefined]]);
  });
});
