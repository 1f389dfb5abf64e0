import { EventEmitter } from 'node:events';
import type { FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../core/cluster/errors.ts';
import type { Cluster, WatchOptions } from '../../../core/cluster/port.ts';
import { DATASET_LABEL } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION, validateObject } from '../../../core/resources/registry.ts';
import { build } from '../../test/build.ts';
import { preferAsync, untilFinished } from './replies.ts';
import { Runs } from './runs.ts';

/**
 * The cluster as a Kubernetes API server serves it to a long wait: every watch ends after one event, as watches
 * end at the timeout the adapter asks for, and the first resumption is answered 410 Gone.
 */
function endingWatches(
  inner: Cluster,
  faults: Record<number, Error> = { 2: new ApiError('Gone', 'too old resource version') },
): { cluster: Cluster; watchedFrom: (string | undefined)[] } {
  const watchedFrom: (string | undefined)[] = [];
  const watch = async function* (kind: typeof ingestionKind, options: WatchOptions) {
    watchedFrom.push(options.resourceVersion);
    const fault = faults[watchedFrom.length];
    if (fault) throw fault;
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

async function sampleRun(inner: Cluster): Promise<Ingestion> {
  const validated = validateObject({
    apiVersion: API_VERSION,
    kind: 'Ingestion',
    metadata: { name: 'sample-run', namespace: 'default', labels: { [DATASET_LABEL]: 'sample' } },
    spec: { source: 'sample', start: '2024-01-01', end: '2024-01-02' },
  });
  if (!validated.ok) throw new Error(JSON.stringify(validated.issues));
  return inner.create<Ingestion>(ingestionKind, validated.object as Ingestion);
}

/** The wait of a client that stays: its socket never closes. */
const finished = (cluster: Cluster, run: Ingestion, retryMs?: number) =>
  new Runs({ cluster, namespace: 'default', retryMs }).finished(run, new AbortController().signal);

const setPhase = (cluster: Cluster, phase: string) =>
  cluster.patchStatus<Ingestion>(
    ingestionKind,
    'sample-run',
    { type: 'merge', body: { status: { phase } } },
    'default',
  );

describe('the wait of a synchronous run request', () => {
  it('resumes from where it was after a watch broke (a dead connection given up, a 5xx), and ends on a refusal', async () => {
    const { cluster: inner } = await build();
    const run = await sampleRun(inner);
    // A refusal would be refused again: the wait ends with it.
    const refused = endingWatches(inner, { 2: new ApiError('Forbidden', 'ingestions is forbidden') });
    await expect(finished(refused.cluster, run, 1)).rejects.toThrow('forbidden');
    expect(refused.watchedFrom).toHaveLength(2);

    const broken = endingWatches(inner, {
      2: new Error('the watch of ingestions sent nothing for 30 s past its timeout'),
      3: new ApiError('InternalError', 'etcdserver: request timed out'),
    });
    const waiting = finished(broken.cluster, run, 1);
    await expect.poll(() => broken.watchedFrom.length).toBe(4);
    await setPhase(inner, 'failed');
    expect((await waiting)?.status?.phase).toBe('failed');
    expect(broken.watchedFrom).toEqual([undefined, ...Array(3).fill(run.metadata.resourceVersion)]);
  });

  it('goes on across watches the server ends, and past a 410, until the run has finished', async () => {
    const { cluster: inner } = await build();
    const run = await sampleRun(inner);
    const { cluster, watchedFrom } = endingWatches(inner);
    const waiting = finished(cluster, run);

    // The first watch gave the run as it is and ended; the second was answered 410; the third gave the state again
    // and ended; the fourth waits from there.
    await expect.poll(() => watchedFrom.length).toBe(4);
    const running = await setPhase(inner, 'running');
    await expect.poll(() => watchedFrom.length).toBe(5);
    await setPhase(inner, 'successful');
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

describe('replies of the routes that start runs', () => {
  it('stop waiting, and leave the run alone, when the client goes away', async () => {
    const { cluster } = await build();
    const run = await sampleRun(cluster);
    const socket = new EventEmitter();
    const reply = { raw: socket } as unknown as FastifyReply;
    const waiting = untilFinished(new Runs({ cluster, namespace: 'default' }), run, reply);
    socket.emit('close');
    expect(await waiting).toBeUndefined();
    expect((await cluster.get<Ingestion>(ingestionKind, 'sample-run', 'default'))?.spec.cancelRequested).toBe(false);
  });

  it.each([
    ['respond-async', true],
    ['wait=10, respond-async', true],
    ['Respond-Async; wait=5', true],
    ['wait=10', false],
    [undefined, false],
  ])('Prefer: %s asks for an asynchronous answer: %s', (prefer, expected) => {
    expect(preferAsync(prefer)).toBe(expected);
  });
});
