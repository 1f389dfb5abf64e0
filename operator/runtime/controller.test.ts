import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventKind } from '../../core/cluster/builtin-kinds.ts';
import { InformerCaches } from '../../core/cluster/informer-caches.ts';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import type { KindRef, KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { API_VERSION } from '../../core/resources/registry.ts';
import { ChildProcessRunner } from '../jobs/child-process-runner.ts';
import type { JobRunner } from '../jobs/runner.ts';
import { startOperator } from '../manager.ts';
import { applyPlan } from './applier.ts';
import { Controller, type ControllerDefinition } from './controller.ts';
import { controllerMetrics } from './metrics.ts';
import { eventually } from '../../test/support/eventually.ts';

const thingKind: KindRef = {
  apiVersion: 'test.stratus.dev/v1',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
  statusSubresource: true,
};
const logger = pino({ level: process.env.TEST_LOG ?? 'silent' });

describe('controller runtime', () => {
  let dataDir: string;
  let cluster: EmbeddedCluster;
  const createThing = (spec: Record<string, unknown> = {}) =>
    cluster.create(thingKind, { apiVersion: thingKind.apiVersion, kind: 'Thing', metadata: { name: 'a' }, spec });
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-controller-'));
    cluster = await openEmbeddedCluster({ dataDir });
  });
  afterEach(async () => {
    await cluster.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('shares one watch per kind among controllers given the same caches, each hearing of every object', async () => {
    await createThing();
    const watched: string[] = [];
    const counting = new Proxy(cluster, {
      get(target, property) {
        if (property === 'watch')
          return (...args: Parameters<Cluster['watch']>) => (watched.push(args[0].kind), target.watch(...args));
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as Cluster;
    const caches = new InformerCaches({ cluster: counting, logger });
    const seen: string[] = [];
    const definition = (name: string): ControllerDefinition => ({
      name,
      kind: thingKind,
      observe: async () => undefined,
      plan: (thing) => {
        seen.push(`${name} ${thing.metadata.name}`);
        return { actions: [], outcome: { kind: 'done', reason: 'seen' } };
      },
    });
    const controllers = ['one', 'two'].map(
      (name) =>
        new Controller(definition(name), {
          cluster: caches.cluster,
          caches,
          metrics: controllerMetrics(new Registry()),
          logger,
        }),
    );
    controllers.forEach((c) => c.start());
    await Promise.all(controllers.map((c) => c.synced()));
    await expect.poll(() => seen.sort()).toEqual(['one a', 'two a']);
    expect(watched).toEqual(['Thing']);
    await Promise.all(controllers.map((c) => c.stop()));
    await caches.stop();
  });

  it('reconciles a DataSource to its status, with an event and controller-runtime metrics', async () => {
    const registry = new Registry();
    const operator = startOperator({
      cluster,
      registry,
      logger,
      instance: { storageRoot: join(dataDir, 'store'), bbox: [0, 0, 1, 1] },
      jobs: new ChildProcessRunner(),
    });
    await cluster.create(dataSourceKind, {
      apiVersion: API_VERSION,
      kind: 'DataSource',
      metadata: { name: 'era5', namespace: 'default' },
      spec: { datasetName: 'ERA5-Land', provider: { name: 'no-such-provider' } },
    });
    const source = await eventually(async () => {
      const s = await cluster.get<KubeObject<unknown, { ingestable?: boolean; observedGeneration?: number }>>(
        dataSourceKind,
        'era5',
        'default',
      );
      return s?.status?.ingestable === false ? s : undefined;
    });
    expect(source.status?.observedGeneration).toBe(1);
    const events = await eventually(async () => {
      const list = await cluster.list(eventKind, { namespace: 'default' });
      return list.items.length > 0 ? list.items : undefined;
    });
    expect(events[0]).toMatchObject({
      reason: 'ProviderUnavailable',
      type: 'Warning',
      regarding: { kind: 'DataSource', name: 'era5' },
    });
    await operator.stop();
    expect(await registry.metrics()).toMatch(
      /controller_runtime_reconcile_total\{controller="datasource",result="success"\} [1-9]/,
    );
  });

  it('skips status writes that change nothing', async () => {
    const created = await createThing();
    const plan = {
      actions: [{ kind: 'patchStatus' as const, status: { phase: 'ok' } }],
      outcome: { kind: 'done' as const, reason: 'test' },
    };
    const first = await applyPlan(cluster, thingKind, created, plan, new Date());
    const stored = (await cluster.get(thingKind, 'a', 'default'))!;
    const second = await applyPlan(cluster, thingKind, stored, plan, new Date());
    expect([first.statusWrites, second.statusWrites]).toEqual([1, 0]);
    expect((await cluster.get(thingKind, 'a', 'default'))?.metadata.resourceVersion).toBe(
      stored.metadata.resourceVersion,
    );
  });

  it('takes a deletion of an object already gone as done, and applies the rest of the plan', async () => {
    const created = await createThing();
    const plan = {
      actions: [
        { kind: 'delete' as const, ref: thingKind, name: 'gone', namespace: 'default' },
        { kind: 'patchStatus' as const, status: { phase: 'ok' } },
      ],
      outcome: { kind: 'done' as const, reason: 'test' },
    };
    expect(await applyPlan(cluster, thingKind, created, plan, new Date())).toEqual({ statusWrites: 1 });
    expect((await cluster.get(thingKind, 'a', 'default'))?.status).toMatchObject({ phase: 'ok' });
  });

  it('records a repeated event once, counting the repeats', async () => {
    const created = await createThing();
    const plan = {
      actions: [{ kind: 'event' as const, type: 'Normal' as const, reason: 'Tested', message: 'same' }],
      outcome: { kind: 'done' as const, reason: 't' },
    };
    await applyPlan(cluster, thingKind, created, plan, new Date());
    await applyPlan(cluster, thingKind, created, plan, new Date());
    const { items } = await cluster.list(eventKind, { namespace: 'default' });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ series: { count: 2 }, note: 'same' });
  });

  it('re-plans from a fresh read when its status write meets a conflict', async () => {
    await createThing({ n: 1 });
    let observations = 0;
    const definition: ControllerDefinition<KubeObject<{ n: number }>, number> = {
      name: 'thing',
      kind: thingKind,
      observe: async (thing) => {
        observations++;
        // Someone else writes between our read and our status write, the first time only.
        if (observations === 1)
          await cluster.patch(thingKind, 'a', { type: 'merge', body: { spec: { n: 2 } } }, 'default');
        return thing.spec!.n;
      },
      plan: (_thing, n) => ({
        actions: [{ kind: 'patchStatus', status: { seen: n } }],
        outcome: { kind: 'done', reason: 'ok' },
      }),
    };
    const registry = new Registry();
    const controller = new Controller(definition, {
      cluster,
      metrics: controllerMetrics(registry),
      logger,
      workers: 1,
    });
    controller.start();
    await eventually(
      async () =>
        ((await cluster.get(thingKind, 'a', 'default'))?.status as { seen?: number })?.seen === 2 || undefined,
    );
    await controller.stop();
    expect(await registry.metrics()).toMatch(
      /controller_runtime_reconcile_total\{controller="thing",result="requeue"\} 1/,
    );
  });

  it('converges on the periodic resync even when no event says anything changed', async () => {
    await createThing();
    let outside = 'before';
    const definition: ControllerDefinition<KubeObject, string> = {
      name: 'resync',
      kind: thingKind,
      observe: async () => outside,
      plan: (_t, value) => ({
        actions: [{ kind: 'patchStatus', status: { value } }],
        outcome: { kind: 'done', reason: 'ok' },
      }),
    };
    const controller = new Controller(definition, {
      cluster,
      metrics: controllerMetrics(new Registry()),
      logger,
      resyncMs: 100,
    });
    controller.start();
    await eventually(
      async () =>
        ((await cluster.get(thingKind, 'a', 'default'))?.status as { value?: string })?.value === 'before' || undefined,
    );
    outside = 'after';
    await eventually(
      async () =>
        ((await cluster.get(thingKind, 'a', 'default'))?.status as { value?: string })?.value === 'after' || undefined,
    );
    await controller.stop();
  });

  it('tells the job runner to forget the attempts of a run it finds deleted', async () => {
    await createThing();
    const forgotten: unknown[] = [];
    const jobs: JobRunner = {
      start: () => undefined,
      get: () => undefined,
      cancel: () => undefined,
      onChange: () => undefined,
      stop: async () => undefined,
      forgetOwner: (owner) => forgotten.push(owner),
    };
    const definition: ControllerDefinition = {
      name: 'runs',
      kind: thingKind,
      observe: async () => undefined,
      plan: () => ({ actions: [], outcome: { kind: 'done', reason: 'ok' } }),
    };
    const controller = new Controller(definition, {
      cluster,
      metrics: controllerMetrics(new Registry()),
      logger,
      jobs,
    });
    controller.start();
    try {
      await controller.synced();
      await cluster.delete(thingKind, 'a', 'default');
      await eventually(async () => forgotten.length > 0 || undefined);
      expect(forgotten).toEqual([{ kind: thingKind, name: 'a', namespace: 'default' }]);
    } finally {
      await controller.stop();
    }
  });

  it('backs off and retries a reconcile that fails', async () => {
    await createThing();
    let calls = 0;
    // The plan must be idempotent, as every real one is: a status that changed each pass would loop forever.
    const definition: ControllerDefinition<KubeObject, string> = {
      name: 'flaky',
      kind: thingKind,
      observe: async () => {
        if (++calls < 3) throw new Error('upstream down');
        return 'recovered';
      },
      plan: (_t, state) => ({
        actions: [{ kind: 'patchStatus', status: { state } }],
        outcome: { kind: 'done', reason: 'ok' },
      }),
    };
    const registry = new Registry();
    const controller = new Controller(definition, {
      cluster,
      metrics: controllerMetrics(registry),
      logger,
      queue: { baseDelayMs: 5 },
    });
    controller.start();
    await eventually(
      async () =>
        ((await cluster.get(thingKind, 'a', 'default'))?.status as { state?: string })?.state === 'recovered' ||
        undefined,
    );
    await controller.stop();
    const text = await registry.metrics();
    expect(text).toMatch(/controller_runtime_reconcile_errors_total\{controller="flaky"\} 2/);
    expect(text).toMatch(/workqueue_retries_total\{name="flaky"\} 2/);
  });
});
