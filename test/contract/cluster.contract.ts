/**
 * The contract of the Cluster port, written against the port alone so that every adapter (embedded files,
 * Kubernetes API) runs the very same cases. Waits poll with deadlines: a real cluster is asynchronous.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isApiError } from '../../core/cluster/errors.ts';
import { secretKind } from '../../core/resources/secret.ts';
import type { KindRef, KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster, WatchEvent } from '../../core/cluster/port.ts';
import { eventually } from '../support/eventually.ts';
import { rejection } from '../support/rejection.ts';

export interface ContractSetup {
  cluster: Cluster;
  kind: KindRef;
  otherKind: KindRef;
  namespace: string;
  cleanup(): Promise<void>;
}

/** Test kinds shaped like a Stratus CRD; the Kubernetes run installs CRDs for them. */
export const widgetKind: KindRef = {
  apiVersion: 'contract.stratus.dev/v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  statusSubresource: true,
};
export const gadgetKind: KindRef = { ...widgetKind, kind: 'Gadget', plural: 'gadgets' };

/** The first `count` events of a watch; a watch that falls short is caught by the test's own timeout. */
async function collect(iterable: AsyncIterable<WatchEvent>, count: number): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  for await (const event of iterable) {
    events.push(event);
    if (events.length >= count) break;
  }
  return events;
}

export function clusterContract(name: string, setup: () => Promise<ContractSetup>): void {
  describe(`Cluster port contract: ${name}`, () => {
    let env: ContractSetup;
    let cluster: Cluster;
    let kind: KindRef;
    let ns: string;

    const widget = (name: string, spec: Record<string, unknown> = { size: 1 }, labels?: Record<string, string>) =>
      ({
        apiVersion: kind.apiVersion,
        kind: kind.kind,
        metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
        spec,
      }) as KubeObject;

    beforeEach(async () => {
      env = await setup();
      ({ cluster, kind, namespace: ns } = env);
    });
    afterEach(async () => env.cleanup());

    it('creates, gets and lists objects; a missing object is undefined', async () => {
      const created = await cluster.create(kind, widget('a'));
      expect(created.metadata).toMatchObject({ name: 'a', namespace: ns, generation: 1 });
      expect(created.metadata.uid).toBeTruthy();
      expect(created.metadata.resourceVersion).toBeTruthy();
      expect(await cluster.get(kind, 'a', ns)).toMatchObject({ spec: { size: 1 } });
      expect(await cluster.get(kind, 'missing', ns)).toBeUndefined();
      await cluster.create(kind, widget('b'));
      const list = await cluster.list(kind, { namespace: ns });
      expect(list.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
      expect(list.resourceVersion).toBeTruthy();
    });

    it('refuses a duplicate create with 409 AlreadyExists', async () => {
      await cluster.create(kind, widget('a'));
      const err = await rejection(cluster.create(kind, widget('a')));
      expect(isApiError(err, 'AlreadyExists') && err.code).toBe(409);
    });

    it('refuses an invalid name with 422 and names the field', async () => {
      for (const bad of ['../etc', 'UPPER', 'a/b', '']) {
        const err = await rejection(cluster.create(kind, widget(bad)));
        expect(isApiError(err, 'Invalid') && err.code).toBe(422);
      }
    });

    it('refuses stale writes with 409 Conflict', async () => {
      const first = await cluster.create(kind, widget('a'));
      const updated = await cluster.update(kind, { ...first, spec: { size: 2 } });
      const stale = await rejection(cluster.update(kind, { ...first, spec: { size: 3 } }));
      expect(isApiError(stale, 'Conflict') && stale.code).toBe(409);
      const stalePatch = await rejection(
        cluster.patch(
          kind,
          'a',
          { type: 'merge', body: { metadata: { resourceVersion: first.metadata.resourceVersion }, spec: { size: 4 } } },
          ns,
        ),
      );
      expect(isApiError(stalePatch, 'Conflict')).toBe(true);
      const staleStatus = await rejection(cluster.updateStatus(kind, { ...first, status: { phase: 'x' } }));
      expect(isApiError(staleStatus, 'Conflict')).toBe(true);
      // How a finished run switches its Dataset: a merge patch of status conditioned on the version it read.
      const staleStatusPatch = await rejection(
        cluster.patchStatus(
          kind,
          'a',
          {
            type: 'merge',
            body: { metadata: { resourceVersion: first.metadata.resourceVersion }, status: { phase: 'y' } },
          },
          ns,
        ),
      );
      expect(isApiError(staleStatusPatch, 'Conflict')).toBe(true);
      expect((await cluster.get(kind, 'a', ns))?.status).toBeUndefined();
      const fresh = await cluster.patchStatus(
        kind,
        'a',
        {
          type: 'merge',
          body: { metadata: { resourceVersion: updated.metadata.resourceVersion }, status: { phase: 'z' } },
        },
        ns,
      );
      expect(fresh.status).toEqual({ phase: 'z' });
      expect((await cluster.get(kind, 'a', ns))?.spec).toEqual(updated.spec);
    });

    it('lets exactly one of two concurrent updates from the same version win', async () => {
      const base = await cluster.create(kind, widget('a'));
      const results = await Promise.allSettled([
        cluster.update(kind, { ...base, spec: { size: 10 } }),
        cluster.update(kind, { ...base, spec: { size: 20 } }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(isApiError(loser.reason, 'Conflict')).toBe(true);
    });

    it('moves generation only when the spec changes', async () => {
      const created = await cluster.create(kind, widget('a'));
      const labelled = await cluster.patch(
        kind,
        'a',
        { type: 'merge', body: { metadata: { labels: { x: 'y' } } } },
        ns,
      );
      expect(labelled.metadata.generation).toBe(1);
      const withStatus = await cluster.patchStatus(kind, 'a', { type: 'merge', body: { status: { phase: 'ok' } } }, ns);
      expect(withStatus.metadata.generation).toBe(1);
      const respec = await cluster.patch(kind, 'a', { type: 'merge', body: { spec: { size: 5 } } }, ns);
      expect(respec.metadata.generation).toBe(2);
      expect(Number(respec.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    });

    it('never changes spec through a status write, nor status through a spec write', async () => {
      const created = await cluster.create(kind, widget('a', { size: 1 }));
      const afterStatus = await cluster.updateStatus(kind, {
        ...created,
        spec: { size: 99 },
        status: { phase: 'running' },
      });
      expect(afterStatus.spec).toEqual({ size: 1 });
      expect(afterStatus.status).toEqual({ phase: 'running' });
      const afterSpec = await cluster.update(kind, { ...afterStatus, spec: { size: 2 }, status: { phase: 'forged' } });
      expect(afterSpec.status).toEqual({ phase: 'running' });
      expect(afterSpec.spec).toEqual({ size: 2 });
    });

    it('applies merge patches and JSON patches, and refuses a failing JSON patch test with 422', async () => {
      await cluster.create(kind, widget('a', { size: 1, tags: ['x'], nested: { keep: true, drop: 1 } }));
      const merged = await cluster.patch(kind, 'a', { type: 'merge', body: { spec: { nested: { drop: null } } } }, ns);
      expect(merged.spec).toEqual({ size: 1, tags: ['x'], nested: { keep: true } });
      const patched = await cluster.patch(
        kind,
        'a',
        {
          type: 'json',
          body: [
            { op: 'test', path: '/spec/size', value: 1 },
            { op: 'add', path: '/spec/tags/-', value: 'y' },
            { op: 'replace', path: '/spec/size', value: 2 },
          ],
        },
        ns,
      );
      expect(patched.spec).toMatchObject({ size: 2, tags: ['x', 'y'] });
      const failed = await rejection(
        cluster.patch(kind, 'a', { type: 'json', body: [{ op: 'test', path: '/spec/size', value: 1 }] }, ns),
      );
      expect(isApiError(failed, 'Invalid') && failed.code).toBe(422);
      expect((await cluster.get(kind, 'a', ns))?.spec).toMatchObject({ size: 2 });
    });

    it('applies declaratively: creates when absent, merges when present', async () => {
      const created = await cluster.apply(kind, widget('a', { size: 1, color: 'red' }));
      expect(created.metadata.generation).toBe(1);
      const applied = await cluster.apply(kind, widget('a', { size: 2 }));
      expect(applied.spec).toMatchObject({ size: 2 });
      expect(applied.metadata.generation).toBe(2);
      const again = await cluster.apply(kind, widget('a', { size: 2 }));
      expect(again.metadata.resourceVersion).toBe(applied.metadata.resourceVersion);
    });

    it('selects by label with every operator', async () => {
      await cluster.create(kind, widget('a', {}, { tier: 'gold', zone: 'x' }));
      await cluster.create(kind, widget('b', {}, { tier: 'silver' }));
      await cluster.create(kind, widget('c', {}, {}));
      const names = async (labelSelector: string) =>
        (await cluster.list(kind, { namespace: ns, labelSelector })).items.map((o) => o.metadata.name);
      expect(await names('tier=gold')).toEqual(['a']);
      expect(await names('tier==gold')).toEqual(['a']);
      expect(await names('tier!=gold')).toEqual(['b', 'c']);
      expect(await names('tier in (gold,silver)')).toEqual(['a', 'b']);
      expect(await names('tier notin (gold)')).toEqual(['b', 'c']);
      expect(await names('zone')).toEqual(['a']);
      expect(await names('!zone')).toEqual(['b', 'c']);
      expect(await names('tier,!zone')).toEqual(['b']);
    });

    it('resumes a watch from a resourceVersion without gaps or duplicates', async () => {
      for (let i = 0; i < 5; i++) await cluster.create(kind, widget(`w${i}`));
      const { resourceVersion } = await cluster.list(kind, { namespace: ns });
      const expected: string[] = [];
      for (let i = 0; i < 5; i++) {
        await cluster.patch(kind, `w${i}`, { type: 'merge', body: { spec: { size: 100 + i } } }, ns);
        expected.push(`MODIFIED w${i} ${100 + i}`);
      }
      await cluster.create(kind, widget('late'));
      expected.push('ADDED late 1');
      await cluster.delete(kind, 'w0', ns);
      expected.push('DELETED w0 100');
      const controller = new AbortController();
      const events = await collect(
        cluster.watch(kind, { namespace: ns, resourceVersion, signal: controller.signal }),
        expected.length,
      );
      controller.abort();
      expect(
        events.map((e) => `${e.type} ${e.object.metadata.name} ${(e.object.spec as { size: number }).size}`),
      ).toEqual(expected);
      const versions = events.map((e) => Number(e.object.metadata.resourceVersion));
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
      expect(new Set(versions).size).toBe(versions.length);
    });

    it('starts a watch without a resourceVersion from the current state, then follows changes', async () => {
      await cluster.create(kind, widget('a', {}, { app: 'x' }));
      await cluster.create(kind, widget('b', {}, { app: 'y' }));
      const controller = new AbortController();
      const watch = cluster.watch(kind, { namespace: ns, labelSelector: 'app=x', signal: controller.signal });
      const pending = collect(watch, 2);
      await cluster.patch(kind, 'b', { type: 'merge', body: { spec: { size: 2 } } }, ns);
      await cluster.patch(kind, 'a', { type: 'merge', body: { spec: { size: 3 } } }, ns);
      const events = await pending;
      controller.abort();
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED a', 'MODIFIED a']);
    });

    it('shows a label-filtered watch an object entering and leaving the selection', async () => {
      await cluster.create(kind, widget('a', {}, { tier: 'gold' }));
      const { resourceVersion } = await cluster.list(kind, { namespace: ns });
      await cluster.patch(kind, 'a', { type: 'merge', body: { metadata: { labels: { tier: 'silver' } } } }, ns);
      await cluster.patch(kind, 'a', { type: 'merge', body: { metadata: { labels: { tier: 'gold' } } } }, ns);
      await cluster.patch(kind, 'a', { type: 'merge', body: { spec: { size: 7 } } }, ns);
      const controller = new AbortController();
      const events = await collect(
        cluster.watch(kind, { namespace: ns, labelSelector: 'tier=gold', resourceVersion, signal: controller.signal }),
        3,
      );
      controller.abort();
      // Leaving the selection shows the object as it last matched, as the API server's watch cache does.
      expect(events.map((e) => `${e.type} ${e.object.metadata.labels?.tier}`)).toEqual([
        'DELETED gold',
        'ADDED gold',
        'MODIFIED gold',
      ]);
    });

    it('keeps an object with a finalizer until the finalizer is removed', async () => {
      await cluster.create(kind, { ...widget('a'), metadata: { name: 'a', namespace: ns, finalizers: ['x/hold'] } });
      const deleting = await cluster.delete(kind, 'a', ns);
      expect(deleting?.metadata.deletionTimestamp).toBeTruthy();
      const held = await cluster.get(kind, 'a', ns);
      expect(held?.metadata.deletionTimestamp).toBeTruthy();
      const err = await rejection(
        cluster.update(kind, { ...held!, metadata: { ...held!.metadata, finalizers: ['x/hold', 'x/new'] } }),
      );
      expect(isApiError(err, 'Invalid')).toBe(true);
      // The write that releases the last finalizer answers the object as last stored, as every write does.
      const released = await cluster.patch(kind, 'a', { type: 'merge', body: { metadata: { finalizers: null } } }, ns);
      expect(released.metadata).toMatchObject({ name: 'a', deletionTimestamp: held!.metadata.deletionTimestamp });
      expect(released.metadata.finalizers ?? []).toEqual([]);
      await eventually(async () => ((await cluster.get(kind, 'a', ns)) === undefined ? true : undefined));
    });

    it('deletes the dependents of a deleted owner, across kinds', async () => {
      const owner = await cluster.create(kind, widget('owner'));
      const ownerReferences = [
        { apiVersion: kind.apiVersion, kind: kind.kind, name: 'owner', uid: owner.metadata.uid!, controller: true },
      ];
      await cluster.create(env.otherKind, {
        apiVersion: env.otherKind.apiVersion,
        kind: env.otherKind.kind,
        metadata: { name: 'child', namespace: ns, ownerReferences },
        spec: {},
      });
      await cluster.create(kind, {
        ...widget('sibling'),
        metadata: { name: 'sibling', namespace: ns, ownerReferences },
      });
      await cluster.create(kind, widget('unrelated'));
      await cluster.delete(kind, 'owner', ns);
      await eventually(async () =>
        (await cluster.get(env.otherKind, 'child', ns)) === undefined &&
        (await cluster.get(kind, 'sibling', ns)) === undefined
          ? true
          : undefined,
      );
      expect(await cluster.get(kind, 'unrelated', ns)).toBeDefined();
    });

    it('orphans dependents when asked to', async () => {
      const owner = await cluster.create(kind, widget('owner'));
      const ownerReferences = [
        { apiVersion: kind.apiVersion, kind: kind.kind, name: 'owner', uid: owner.metadata.uid! },
      ];
      await cluster.create(kind, { ...widget('child'), metadata: { name: 'child', namespace: ns, ownerReferences } });
      await cluster.delete(kind, 'owner', ns, { propagationPolicy: 'Orphan' });
      const orphan = await eventually(async () => {
        const child = await cluster.get(kind, 'child', ns);
        return child && !child.metadata.ownerReferences?.length ? child : undefined;
      });
      expect(orphan.metadata.name).toBe('child');
    });

    const secret = (name: string, members: Record<string, unknown>) =>
      ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, ...members }) as KubeObject;
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

    it("stores a Secret's stringData as base64 data, on create and on update", async () => {
      await cluster.create(secretKind, secret('s', { stringData: { a: 'one' }, data: { b: b64('two') } }));
      expect(await cluster.get(secretKind, 's', ns)).toMatchObject({
        type: 'Opaque',
        data: { a: b64('one'), b: b64('two') },
      });
      expect((await cluster.get(secretKind, 's', ns))?.stringData).toBeUndefined();
      await cluster.patch(secretKind, 's', { type: 'merge', body: { stringData: { a: 'three' } } }, ns);
      const patched = await cluster.get(secretKind, 's', ns);
      expect(patched?.data).toEqual({ a: b64('three'), b: b64('two') });
      expect(patched?.stringData).toBeUndefined();
    });

    it('lets exactly one of concurrent creates of one Secret win, the others 409 AlreadyExists', async () => {
      const results = await Promise.allSettled(
        ['x', 'y', 'z', 'w'].map((value) => cluster.create(secretKind, secret('once', { stringData: { value } }))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results.filter((r) => r.status === 'rejected'))
        expect(isApiError((r as PromiseRejectedResult).reason, 'AlreadyExists')).toBe(true);
      const winner = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<KubeObject>).value;
      expect((await cluster.get(secretKind, 'once', ns))?.data).toEqual(winner.data);
    });

    it('keeps the data of an immutable Secret with 422', async () => {
      await cluster.create(secretKind, secret('fixed', { stringData: { a: 'one' }, immutable: true }));
      const err = await rejection(
        cluster.patch(secretKind, 'fixed', { type: 'merge', body: { stringData: { a: 'two' } } }, ns),
      );
      expect(isApiError(err, 'Invalid') && err.code).toBe(422);
      expect((await cluster.get(secretKind, 'fixed', ns))?.data).toEqual({ a: b64('one') });
    });

    it('honours a resourceVersion precondition on delete, and 404 for a missing object', async () => {
      const created = await cluster.create(kind, widget('a'));
      await cluster.patch(kind, 'a', { type: 'merge', body: { spec: { size: 9 } } }, ns);
      const err = await rejection(cluster.delete(kind, 'a', ns, { resourceVersion: created.metadata.resourceVersion }));
      expect(isApiError(err, 'Conflict')).toBe(true);
      const missing = await rejection(cluster.delete(kind, 'nope', ns));
      expect(isApiError(missing, 'NotFound') && missing.code).toBe(404);
    });
  });
}
