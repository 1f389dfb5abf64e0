import { EventEmitter } from 'node:events';
import type { FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../core/cluster/errors.ts';
import type { Cluster, WatchOptions } from '../../../core/cluster/port.ts';
import { DATASET_LABEL } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION, validateObject } from '../../../core/resources/registry.ts';
import { build } from '../../test/build.ts';
import { untilFinished } from './runs.ts';

/**
 * The cluster as a Kubernetes API server serves it to a long wait: every watch ends after one event, as watches
 * end at the timeout the adapter asks for, and the first resumption is answered 410 Gone.
 */
function endingWatches(inner: Cluster): { cluster: Cluster; watchedFrom: (string | undefined)[] } {
  const watchedFrom: (string | undefined)[] = [];
  const watch = async function* (kind: typeof ingestionKind, options: WatchOptions) {
    watchedFrom.push(options.resourceVersion);
    if (watchedFrom.length === 2) throw new ApiError('Gone', 'too old resource version');
    for await (const event of inner.watch(kind, options)) {
      yield event;
      return;
    }
  };
  const cluster = new Proxy(inner, {
    get: (target, member) => {
      if (member === 'watch') return watch;
      const value: unknown = Reflect.get(target, member);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { cluster, watchedFrom };
}

describe('the wait of a synchronous run request', () => {
  it('goes on across watches the server ends, and past a 410, until the run has finished', async () => {
    const { cluster: inner } = await build();
    const validated = validateObject({
      apiVersion: API_VERSION,
      kind: 'Ingestion',
      metadata: { name: 'sample-run', namespace: 'default', labels: { [DATASET_LABEL]: 'sample' } },
      spec: { source: 'sample', start: '2024-01-01', end: '2024-01-02' },
    });
    if (!validated.ok) throw new Error(JSON.stringify(validated.issues));
    const run = await inner.create<Ingestion>(ingestionKind, validated.object as Ingestion);
    const { cluster, watchedFrom } = endingWatches(inner);
    // The reply's socket stays open: the client waits.
    const waiting = untilFinished(cluster, run, { raw: new EventEmitter() } as unknown as FastifyReply);

    // The first watch gave the run as it is and ended; the second was answered 410; the third gave the state again
    // and ended; the fourth waits from there.
    await expect.poll(() => watchedFrom.length).toBe(4);
    const running = await inner.patchStatus<Ingestion>(
      ingestionKind,
      'sample-run',
      { type: 'merge', body: { status: { phase: 'running' } } },
      'default',
    );
    await expect.poll(() => watchedFrom.length).toBe(5);
    await inner.patchStatus(
      ingestionKind,
      'sample-run',
      { type: 'merge', body: { status: { phase: 'successful' } } },
      'default',
    );
    expect((await waiting)?.status?.phase).toBe('successful');
    expect(watchedFrom).toEqual([
      undefined,
      run.metadata.resourceVersion,
      undefined,
      run.metadata.resourceVersion,
      running.metadata.resourceVersion,
    ]);
  });
});
