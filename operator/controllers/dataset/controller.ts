import { objectKey, type KubeObject } from '../../../core/cluster/objects.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { DATASET_LABEL, isFinished } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { datasetRuns } from './runs.ts';
import { planDataset, type DatasetObserved } from './plan.ts';

export const datasetController: ControllerDefinition<Dataset, DatasetObserved> = {
  name: 'dataset',
  kind: datasetKind,
  // A run that ends may put an older one past the dataset's history limits; a run still going changes nothing.
  watches: [
    {
      kind: ingestionKind,
      keysOf: (object: KubeObject) => {
        const dataset = object.metadata.labels?.[DATASET_LABEL];
        return dataset && isFinished(object as Ingestion)
          ? [objectKey({ metadata: { namespace: object.metadata.namespace, name: dataset } })]
          : [];
      },
    },
  ],
  // Each reconcile is one status write at most: several at once let the store commit them together.
  workers: 16,
  observe: async (dataset, cluster, _jobs, caches) => {
    const { name, namespace } = dataset.metadata;
    const [source, runs] = await Promise.all([
      cluster.get(dataSourceKind, dataset.spec.source, namespace),
      datasetRuns(caches, cluster, namespace, name),
    ]);
    return { sourceExists: source !== undefined, runs };
  },
  plan: planDataset,
};
