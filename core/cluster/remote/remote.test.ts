// What the shared contract (test/contract/remote.test.ts) does not reach: errors of a watch and a vanished owner.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { widgetKind } from '../../../test/contract/cluster.contract.ts';
import { rejection } from '../../../test/support/rejection.ts';
import { startClusterOwner, type ClusterOwner } from '../../../test/support/remote-cluster.ts';
import { isApiError, isRetriable } from '../errors.ts';
import type { KubeObject } from '../objects.ts';

const widget = (name: string) =>
  ({
    apiVersion: widgetKind.apiVersion,
    kind: widgetKind.kind,
    metadata: { name, namespace: 'ns' },
    spec: {},
  }) as KubeObject;

async function firstEvent(iterable: AsyncIterable<unknown>): Promise<unknown> {
  for await (const event of iterable) return event;
  return undefined;
}

describe('the remote Cluster adapter', () => {
  let dir: string;
  let owner: ClusterOwner;
  afterEach(async () => {
    await owner.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('fails a watch from a version past the history with ApiError Gone (410), as the owner does', async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-remote-'));
    owner = await startClusterOwner(dir, 2);
    const first = await owner.cluster.create(widgetKind, widget('a'));
    for (const name of ['b', 'c', 'd']) await owner.cluster.create(widgetKind, widget(name));
    const gone = await rejection(
      firstEvent(owner.cluster.watch(widgetKind, { resourceVersion: first.metadata.resourceVersion })),
    );
    expect(isApiError(gone, 'Gone') && gone.code).toBe(410);
    const bad = await rejection(firstEvent(owner.cluster.watch(widgetKind, { resourceVersion: 'x' })));
    expect(isApiError(bad, 'BadRequest')).toBe(true);
  });

  it('fails open watches and later calls with a retriable InternalError once the owner is gone', async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-remote-'));
    owner = await startClusterOwner(dir);
    await owner.cluster.create(widgetKind, widget('a'));
    const { resourceVersion } = await owner.cluster.list(widgetKind);
    const watch = owner.cluster.watch(widgetKind, { resourceVersion });
    const ended = rejection(firstEvent(watch));
    owner.process.kill('SIGKILL');
    const err = await ended;
    expect(isApiError(err, 'InternalError') && isRetriable(err)).toBe(true);
    expect(isApiError(await rejection(owner.cluster.get(widgetKind, 'a', 'ns')), 'InternalError')).toBe(true);
  });
});
