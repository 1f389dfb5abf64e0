import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { runsPastHistory } from '../../../core/resources/ingestion/history.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { datasetConditions } from '../../../core/resources/dataset/conditions.ts';
import type { Plan } from '../../runtime/actions.ts';
import { readinessConditions, readinessOf } from '../../runtime/readiness.ts';

export interface DatasetObserved {
  /** Whether the DataSource named by `spec.source` exists. */
  sourceExists: boolean;
  /** The runs labelled with the dataset (the API and schedules label every run they start). */
  runs: readonly Ingestion[];
}

/**
 * A dataset is Ready once a version is materialized. Before that it waits for an ingestion; a dataset whose
 * source does not exist is Stalled, since no ingestion can fill it. Its finished runs past its history limits
 * are deleted.
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
  const expired = runsPastHistory(observed.runs, dataset.spec);
  return {
    actions: [
      ...expired.map((name) => ({
        kind: 'delete' as const,
        ref: ingestionKind,
        name,
        namespace: dataset.metadata.namespace,
      })),
      {
        kind: 'patchStatus',
        status: {
          ...status,
          publication: status.publication ?? { status: 'unpublished' },
          conditions,
        },
      },
    ],
    outcome: {
      kind: 'done',
      reason:
        expired.length > 0 ? `${readiness.reason}; ${expired.length} runs past the history limits` : readiness.reason,
    },
  };
}
