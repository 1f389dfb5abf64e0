import { objectKey, type KubeObject } from '../../../core/cluster/objects.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { versionPins } from '../../../core/resources/dataset/retention.ts';
import { DEFAULT_VERSION_HISTORY_LIMIT, datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { deliveryKind, type Delivery } from '../../../core/resources/delivery/schema.ts';
import { DATASET_LABEL, isFinished } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { datasetRuns } from './runs.ts';
import { planDataset, type DatasetObserved } from './plan.ts';

/**
 * The runs that may hold versions of `dataset`, read only when it has more versions than it keeps or some asked
 * to be removed: only then can one expire, which is once after each publish, not at every reconcile of every dataset.
 */
async function pinsOf(cluster: Cluster, dataset: Dataset) {
  const { name, namespace } = dataset.metadata;
  const limit = dataset.spec.versionHistoryLimit ?? DEFAULT_VERSION_HISTORY_LIMIT;
  const removing = dataset.spec.removeVersions?.length ?? 0;
  if ((dataset.status?.versions?.length ?? 0) <= limit && removing === 0) return [];
  const [jobs, deliveries] = await Promise.all([
    cluster.list<ProcessingJob>(processingJobKind, { namespace }),
    cluster.list<Delivery>(deliveryKind, { namespace }),
  ]);
  return versionPins(name, jobs.items, deliveries.items);
}

export function datasetController(instance: {
  storageRoot: string;
  versionGraceMs?: number;
}): ControllerDefinition<Dataset, DatasetObserved> {
  return {
    name: 'dataset',
    kind: datasetKind,
    watches: [
      // A run that ends may put an older one past the dataset's history limits; a run still going changes nothing.
      {
        kind: ingestionKind,
        keysOf: (object: KubeObject) => {
          const dataset = object.metadata.labels?.[DATASET_LABEL];
          return dataset && isFinished(object as Ingestion)
            ? [objectKey({ metadata: { namespace: object.metadata.namespace, name: dataset } })]
            : [];
        },
      },
      // A batch job that ends releases the versions it read.
      {
        kind: processingJobKind,
        keysOf: (object: KubeObject) => {
          const job = object as ProcessingJob;
          const ended = job.status?.phase !== 'queued' && job.status?.phase !== 'running';
          return ended
            ? [...new Set((job.status?.inputs ?? []).map((i) => i.dataset))].map((name) =>
                objectKey({ metadata: { namespace: object.metadata.namespace, name } }),
              )
            : [];
        },
      },
    ],
    // Each reconcile is one status write at most: several at once let the store commit them together.
    workers: 16,
    observe: async (dataset, cluster, _jobs, caches) => {
      const { name, namespace } = dataset.metadata;
      const [source, runs, pins] = await Promise.all([
        cluster.get(dataSourceKind, dataset.spec.source, namespace),
        datasetRuns(caches, cluster, namespace, name),
        pinsOf(cluster, dataset),
      ]);
      const retention = { pins, storageRoot: instance.storageRoot, graceMs: instance.versionGraceMs };
      return { sourceExists: source !== undefined, runs, retention };
    },
    plan: planDataset,
  };
}
