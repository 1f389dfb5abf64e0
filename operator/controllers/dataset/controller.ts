import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { planDataset, type DatasetObserved } from './plan.ts';

export const datasetController: ControllerDefinition<Dataset, DatasetObserved> = {
  name: 'dataset',
  kind: datasetKind,
  observe: async (dataset, cluster) => ({
    sourceExists: (await cluster.get(dataSourceKind, dataset.spec.source, dataset.metadata.namespace)) !== undefined,
  }),
  plan: planDataset,
};
