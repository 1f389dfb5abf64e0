import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { datasetConditions } from '../../../core/resources/dataset/conditions.ts';
import type { Plan } from '../../runtime/actions.ts';
import { readinessConditions, readinessOf } from '../../runtime/readiness.ts';

export interface DatasetObserved {
  /** Whether the DataSource named by `spec.source` exists. */
  sourceExists: boolean;
}

/**
 * A dataset is Ready once a version is materialized. Before that it waits for an ingestion; a dataset whose
 * source does not exist is Stalled, since no ingestion can fill it.
 */
export function planDataset(dataset: Dataset, observed: DatasetObserved, now: Date): Plan {
  const generation = dataset.metadata.generation as number | undefined;
  const status = dataset.status ?? {};
  const readiness = !observed.sourceExists
    ? readinessOf(datasetConditions, 'SourceNotFound', `DataSource ${dataset.spec.source} does not exist.`)
    : status.currentVersion
      ? readinessOf(datasetConditions, 'Materialized', `Serving version ${status.currentVersion}.`)
      : readinessOf(datasetConditions, 'AwaitingIngestion', 'No version is materialized yet.');
  const conditions = readinessConditions(status.conditions, readiness, generation, now);
  return {
    actions: [
      {
        kind: 'patchStatus',
        status: {
          ...status,
          publication: status.publication ?? { status: 'unpublished' },
          conditions,
        },
      },
    ],
    outcome: { kind: 'done', reason: readiness.reason },
  };
}
