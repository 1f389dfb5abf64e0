import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { z } from 'zod';
import { describe, expect, it, onTestFinished } from 'vitest';
import { InformerCaches } from '../../../core/cluster/informer-caches.ts';
import type { KindRef } from '../../../core/cluster/objects.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { DATASET_LABEL } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion, type ingestionPhase } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION, validateObject } from '../../../core/resources/registry.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { slowWatchCluster } from '../../../test/support/slow-watch.ts';
import { Controller } from '../../runtime/controller.ts';
import { controllerMetrics } from '../../runtime/metrics.ts';
import { datasetController } from './controller.ts';
import { datasetRuns } from './runs.ts';

type IngestionPhase = z.infer<typeof ingestionPhase>;

/** Watch events arrive this late: longer than a reconcile takes, so a cache that did not wait would be stale. */
const WATCH_DELAY_MS = 150;

const resource = (ref: KindRef, object: Record<string, unknown>) => {
  const result = validateObject({ apiVersion: API_VERSION, kind: ref.kind, ...object });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.object;
};

const run = (name: string) =>
  resource(ingestionKind, {
    metadata: { name, namespace: 'default', labels: { [DATASET_LABEL]: 'sample' } },
    spec: { source: 'sample', datasetId: 'sample', mode: 'sync' },
  });

describe("a dataset's runs, from the Ingestion cache", () => {
  it('include a run this process just started although the watch has not delivered it yet', async () => {
    const { cluster } = await slowWatchCluster(WATCH_DELAY_MS);
    const caches = new InformerCaches({ cluster, logger: pino({ level: 'silent' }) });
    onTestFinished(() => caches.stop());
    expect(await datasetRuns(caches, caches.cluster, 'default', 'sample')).toEqual([]);
    // As the applier applies a schedule's run: the next check must find it running, or it would start another.
    await caches.cluster.apply(ingestionKind, run('sample-tick-1'), { fieldManager: 'stratus-operator' });
    const runs = await datasetRuns(caches, caches.cluster, 'default', 'sample');
    expect(runs.map((r: Ingestion) => r.metadata.name)).toEqual(['sample-tick-1']);
  });
});

describe('a dataset keeps its newest runs with the cache behind a late watch (embedded)', () => {
  async function start(cluster: Cluster) {
    const registry = new Registry();
    const controller = new Controller(datasetController({ storageRoot: '/store' }), {
      cluster,
      metrics: controllerMetrics(registry),
      logger: pino({ level: 'silent' }),
    });
    controller.start();
    onTestFinished(() => controller.stop());
    return registry;
  }

  it('deletes each run past the limits once, never a run still going, and fails no reconcile', async () => {
    const { cluster, embedded } = await slowWatchCluster(WATCH_DELAY_MS);
    await embedded.create(
      dataSourceKind,
      resource(dataSourceKind, {
        metadata: { name: 'sample', namespace: 'default' },
        spec: { datasetName: 'Sample', periodType: 'daily', provider: { name: 'sample' } },
      }),
    );
    await embedded.create(
      datasetKind,
      resource(datasetKind, {
        metadata: { name: 'sample', namespace: 'default' },
        spec: { source: 'sample', datasetName: 'Sample', successfulRunsHistoryLimit: 1, failedRunsHistoryLimit: 1 },
      }),
    );
    const registry = await start(cluster);
    const finished = async (name: string, phase: IngestionPhase, finishedAt?: string) => {
      await embedded.create(ingestionKind, run(name));
      await embedded.patchStatus(
        ingestionKind,
        name,
        { type: 'merge', body: { status: { phase, ...(finishedAt && { finishedAt }) } } },
        'default',
      );
    };
    await finished('going', 'running');
    for (let day = 1; day <= 6; day++) {
      await finished(`ok-${day}`, 'successful', `2025-03-0${day}T10:00:00Z`);
      await finished(`failed-${day}`, 'failed', `2025-03-0${day}T11:00:00Z`);
    }
    const names = async () =>
      (await embedded.list<Ingestion>(ingestionKind, { namespace: 'default' })).items.map((r) => r.metadata.name);
    await eventually(async () => ((await names()).length === 3 ? true : undefined));
    expect(await names()).toEqual(['failed-6', 'going', 'ok-6']);
    // A reconcile planned from a cache that had not seen its own deletions would delete a run twice (404).
    await new Promise((resolve) => setTimeout(resolve, 4 * WATCH_DELAY_MS));
    const errors = (await registry.getSingleMetric('controller_runtime_reconcile_errors_total')?.get())?.values ?? [];
    expect(errors.reduce((sum, v) => sum + v.value, 0)).toBe(0);
  });
});
