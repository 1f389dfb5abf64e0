import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { runsPastHistory } from '../../../core/resources/ingestion/history.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { datasetConditions } from '../../../core/resources/dataset/conditions.ts';
import type { Plan } from '../../runtime/actions.ts';
import { readinessConditions, readinessOf } from '../../runtime/readiness.ts';
import { planRetention, type RetentionObserved } from './retention.ts';

export interface DatasetObserved {
  /** Whether the DataSource named by `spec.source` exists. */
  sourceExists: boolean;
  /** The runs labelled with the dataset (the API and schedules label every run they start). */
  runs: readonly Ingestion[];
  /** What retention needs: the versions runs hold, the store, the grace period. */
  retention?: RetentionObserved;
}

/**
 * A dataset is Ready once a version is materialized. Before that it waits for an ingestion; a dataset whose
 * source does not exist is Stalled, since no ingestion can fill it. Its finished runs past its history limits
 * are deleted, and its versions past retention leave its status, their files removed by a worker.
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
  const retention = observed.retention ? planRetention(dataset, observed.retention, now) : { actions: [] };
  const reasons = [
    readiness.reason,
    ...(expired.length > 0 ? [`${expired.length} runs past the history limits`] : []),
    ...(retention.reason ? [retention.reason] : []),
  ].join('; ');
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
          ...(retention.versions && { versions: retention.versions }),
        },
      },
      ...retention.actions,
    ],
    outcome:
      retention.recheckMs !== undefined
        ? { kind: 'requeueAfter', ms: retention.recheckMs, reason: reasons }
        : { kind: 'done', reason: reasons },
  };
}
