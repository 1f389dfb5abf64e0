import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import type { KubeObject } from './objects.ts';
import type { Cluster, WatchEvent, WatchOptions } from './port.ts';
import { ingestionKind } from '../resources/ingestion/schema.ts';
import { inform, type InformerOptions } from './informer.ts';

const object = (name: string, resourceVersion: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Thing',
  metadata: { name, resourceVersion },
});

/** A cluster whose watches play a script: each entry is one watch, ending in its events or an error. */
function scriptedCluster(lists: KubeObject[][], watches: (WatchEvent[] | Error)[]) {
  const watchedFrom: (string | undefined)[] = [];
  let listed = 0;
  const cluster = {
    list: async () => {
      const items = lists[Math.min(listed, lists.length - 1)]!;
      listed++;
      return { items, resourceVersion: `list-${listed}` };
    },
    watch: async function* (_kind: unknown, options: WatchOptions) {
      watchedFrom.push(options.resourceVersion);
      const next = watches.shift();
      if (!next) {
        await new Promise((resolve) => options.signal?.addEventListener('abort', resolve));
        return;
      }
      if (next instanceof Error) throw next;
      yield* next;
    },
  } as unknown as Cluster;
  return { cluster, watchedFrom };
}

/** An informer of Ingestions over `cluster` that logs nothing, with `options` for its receivers and delay. */
function quietInformer(cluster: Cluster, abort: AbortController, options: Partial<InformerOptions<KubeObject>> = {}) {
  return inform({
    cluster,
    kind: ingestionKind,
    logger: pino({ level: 'silent' }),
    signal: abort.signal,
    onList: () => {},
    onEvent: () => {},
    ...options,
  });
}

describe('the informer', () => {
  it('lists, watches from the list, resumes from the last event and relists when its version is gone', async () => {
    const { cluster, watchedFrom } = scriptedCluster(
      [[object('a', '1')], [object('b', '5')]],
      [
        [{ type: 'ADDED', object: object('c', '2') }],
        new ApiError('Gone', 'too old resource version'),
        [{ type: 'MODIFIED', object: object('b', '6') }],
      ],
    );
    const lists: string[][] = [];
    const events: string[] = [];
    const abort = new AbortController();
    const informer = quietInformer(cluster, abort, {
      onList: (items) => lists.push(items.map((item) => item.metadata.name)),
      onEvent: (event) => events.push(`${event.type} ${event.object.metadata.name}`),
    });
    await informer.synced;
    await expect.poll(() => events).toEqual(['ADDED c', 'MODIFIED b']);
    abort.abort();
    await informer.done;
    expect(lists).toEqual([['a'], ['b']]);
    expect(watchedFrom.slice(0, 4)).toEqual(['list-1', '2', 'list-2', '6']);
  });

  it('re-establishes a watch that failed otherwise, from where it was', async () => {
    const { cluster, watchedFrom } = scriptedCluster([[]], [new Error('connection reset')]);
    const abort = new AbortController();
    const informer = quietInformer(cluster, abort, { rewatchMs: 1 });
    await expect.poll(() => watchedFrom.length).toBe(2);
    abort.abort();
    await informer.done;
    expect(watchedFrom.slice(0, 2)).toEqual(['list-1', 'list-1']);
  });

  it('waits before re-opening a watch that ends at once without events, instead of spinning', async () => {
    let watches = 0;
    const cluster = {
      list: async () => ({ items: [], resourceVersion: '1' }),
      // A closed cluster's watch: it ends before its first event, every time.
      watch: () => {
        watches++;
        return (async function* () {})();
      },
    } as unknown as Cluster;
    const abort = new AbortController();
    const informer = quietInformer(cluster, abort, { rewatchMs: 50 });
    await informer.synced;
    // A timer of its own runs only if the informer's loop yields to the event loop.
    await new Promise((resolve) => setTimeout(resolve, 300));
    abort.abort();
    await informer.done;
    expect(watches).toBeGreaterThanOrEqual(2);
    expect(watches).toBeLessThanOrEqual(8);
  });
});
