import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../../core/cluster/embedded/index.ts';
import { objectKey, type KindRef } from '../../../core/cluster/objects.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION, validateObject } from '../../../core/resources/registry.ts';
import { scheduleKind, type Schedule } from '../../../core/resources/schedule/schema.ts';
import { setCurrentVersion } from '../../../test/support/current-version.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { Controller } from '../../runtime/controller.ts';
import { soleProcess } from '../../runtime/leadership.ts';
import { controllerMetrics } from '../../runtime/metrics.ts';
import { scheduleController } from './controller.ts';

/** The Schedule controller over an embedded cluster, on a clock the test moves. */
describe('schedules on a moving clock (embedded)', () => {
  let dataDir: string;
  let cluster: EmbeddedCluster;
  let clock: Date;
  const controllers: Controller[] = [];

  const start = (readOnly: boolean) => {
    const controller = new Controller(scheduleController({ readOnly, leadership: soleProcess }), {
      cluster,
      metrics: controllerMetrics(new Registry()),
      logger: pino({ level: 'silent' }),
      now: () => clock,
    });
    controller.start();
    controllers.push(controller);
    return controller;
  };

  const create = async (ref: KindRef, object: Record<string, unknown>) => {
    const result = validateObject({ apiVersion: API_VERSION, kind: ref.kind, ...object });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    return cluster.create(ref, result.object);
  };

  /** Moves the clock and has the controller look at the schedule; resolves once the check is recorded. */
  const tickTo = async (controller: Controller, iso: string, check: (s: Schedule['status']) => boolean) => {
    clock = new Date(iso);
    controller.queue.add(objectKey({ metadata: { name: 'every-minute', namespace: 'default' } }));
    return eventually(async () => {
      const status = (await cluster.get<Schedule>(scheduleKind, 'every-minute', 'default'))?.status;
      return status && check(status) ? status : undefined;
    });
  };

  const runs = async () => (await cluster.list<Ingestion>(ingestionKind, { namespace: 'default' })).items;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-schedule-'));
    cluster = await openEmbeddedCluster({ dataDir });
    clock = new Date('2025-03-01T10:00:30Z');
    await create(dataSourceKind, {
      metadata: { name: 'sample', namespace: 'default' },
      spec: { datasetName: 'Sample', periodType: 'daily', provider: { name: 'sample' } },
    });
    await create(datasetKind, {
      metadata: { name: 'sample', namespace: 'default' },
      spec: { source: 'sample', datasetName: 'Sample', periodType: 'daily' },
    });
    await setCurrentVersion(cluster, 'sample', 'v1');
    await create(scheduleKind, {
      metadata: { name: 'every-minute', namespace: 'default' },
      spec: { datasetId: 'sample', cron: '* * * * *' },
    });
  });

  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await cluster.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('submits a run on the tick, reports already_running while it runs, and submits again after', async () => {
    const controller = start(false);
    const waiting = await tickTo(controller, '2025-03-01T10:00:30Z', (s) => s?.nextCheck !== undefined);
    expect(waiting).toMatchObject({ nextCheck: '2025-03-01T10:01:00.000Z' });
    expect(waiting?.lastOutcome).toBeUndefined();

    const first = await tickTo(controller, '2025-03-01T10:01:02Z', (s) => s?.lastOutcome !== undefined);
    expect(first).toMatchObject({ lastOutcome: 'submitted', nextCheck: '2025-03-01T10:02:00.000Z' });
    expect((await runs()).map((r) => [r.metadata.name, r.spec.mode])).toEqual([[first!.lastJobId, 'sync']]);

    const busy = await tickTo(controller, '2025-03-01T10:02:01Z', (s) => s?.lastCheck === '2025-03-01T10:02:01.000Z');
    expect(busy).toMatchObject({ lastOutcome: 'already_running', lastJobId: first!.lastJobId });
    expect(await runs()).toHaveLength(1);

    await cluster.patchStatus(
      ingestionKind,
      first!.lastJobId!,
      { type: 'merge', body: { status: { phase: 'successful' } } },
      'default',
    );
    const again = await tickTo(controller, '2025-03-01T10:03:01Z', (s) => s?.lastCheck === '2025-03-01T10:03:01.000Z');
    expect(again).toMatchObject({ lastOutcome: 'submitted' });
    expect(again!.lastJobId).not.toBe(first!.lastJobId);
    expect(await runs()).toHaveLength(2);
  });

  it('reports read_only on a read-only instance and starts nothing', async () => {
    const controller = start(true);
    await tickTo(controller, '2025-03-01T10:00:30Z', (s) => s?.nextCheck !== undefined);
    const checked = await tickTo(controller, '2025-03-01T10:01:02Z', (s) => s?.lastOutcome !== undefined);
    expect(checked).toMatchObject({ lastOutcome: 'read_only', nextCheck: '2025-03-01T10:02:00.000Z' });
    expect(checked?.lastJobId).toBeUndefined();
    expect(await runs()).toEqual([]);
  });
});
