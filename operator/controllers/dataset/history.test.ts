import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../../core/cluster/embedded/index.ts';
import type { KindRef } from '../../../core/cluster/objects.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { DATASET_LABEL } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion, type ingestionPhase } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION, validateObject } from '../../../core/resources/registry.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { Controller } from '../../runtime/controller.ts';
import { controllerMetrics } from '../../runtime/metrics.ts';
import { datasetController } from './controller.ts';

type IngestionPhase = z.infer<typeof ingestionPhase>;

/** The Dataset controller over an embedded cluster: runs ending put older ones past the history limits. */
describe('a dataset keeps its newest runs (embedded)', () => {
  let dataDir: string;
  let cluster: EmbeddedCluster;
  let controller: Controller;

  const create = async (ref: KindRef, object: Record<string, unknown>) => {
    const result = validateObject({ apiVersion: API_VERSION, kind: ref.kind, ...object });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    return cluster.create(ref, result.object);
  };

  const finishedRun = async (name: string, phase: IngestionPhase, finishedAt?: string) => {
    await create(ingestionKind, {
      metadata: { name, namespace: 'default', labels: { [DATASET_LABEL]: 'sample' } },
      spec: { source: 'sample', datasetId: 'sample', mode: 'ingestion' },
    });
    await cluster.patchStatus(
      ingestionKind,
      name,
      { type: 'merge', body: { status: { phase, ...(finishedAt && { finishedAt }) } } },
      'default',
    );
  };

  const names = async () =>
    (await cluster.list<Ingestion>(ingestionKind, { namespace: 'default' })).items.map((r) => r.metadata.name).sort();

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-dataset-history-'));
    cluster = await openEmbeddedCluster({ dataDir });
    await create(dataSourceKind, {
      metadata: { name: 'sample', namespace: 'default' },
      spec: { datasetName: 'Sample', periodType: 'daily', provider: { name: 'sample' } },
    });
    await create(datasetKind, {
      metadata: { name: 'sample', namespace: 'default' },
      spec: { source: 'sample', datasetName: 'Sample', successfulRunsHistoryLimit: 1, failedRunsHistoryLimit: 1 },
    });
    controller = new Controller(datasetController({ storageRoot: '/store' }), {
      cluster,
      metrics: controllerMetrics(new Registry()),
      logger: pino({ level: 'silent' }),
    });
    controller.start();
  });

  afterEach(async () => {
    await controller.stop();
    await cluster.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('deletes the older finished runs as new ones end, and never a run still going', async () => {
    await finishedRun('going', 'running');
    await finishedRun('ok-old', 'successful', '2025-03-01T10:00:00Z');
    await finishedRun('failed-old', 'failed', '2025-03-01T11:00:00Z');
    await finishedRun('ok-new', 'successful', '2025-03-02T10:00:00Z');
    await finishedRun('cancelled-new', 'cancelled', '2025-03-02T11:00:00Z');
    await eventually(async () => ((await names()).length === 3 ? true : undefined));
    expect(await names()).toEqual(['cancelled-new', 'going', 'ok-new']);
  });
});
