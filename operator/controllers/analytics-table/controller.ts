import { objectKey, type KubeObject } from '../../../core/cluster/objects.ts';
import { analyticsTableKind, type AnalyticsTable } from '../../../core/resources/analytics-table/schema.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { featureCollectionKind } from '../../../core/resources/feature-collection/schema.ts';
import type { RetryBackoff } from '../../../core/runs/backoff.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { planAnalyticsTable } from './plan.ts';
import { cleanupName, type AnalyticsTableObserved } from './steps.ts';

/** The Datasets and FeatureCollection each table reads, by table key: what a change of one of them requeues. */
type Sources = Map<string, { namespace: string | undefined; datasets: string[]; featureCollection: string }>;

function requeued(sources: Sources, kind: 'datasets' | 'featureCollection') {
  return (object: KubeObject) =>
    [...sources]
      .filter(
        ([, s]) =>
          s.namespace === object.metadata.namespace &&
          (kind === 'datasets'
            ? s.datasets.includes(object.metadata.name)
            : s.featureCollection === object.metadata.name),
      )
      .map(([key]) => key);
}

export function analyticsTableController(
  instance: { storageRoot: string },
  backoff?: RetryBackoff,
): ControllerDefinition<AnalyticsTable, AnalyticsTableObserved> {
  const sources: Sources = new Map();
  return {
    name: 'analytics-table',
    kind: analyticsTableKind,
    // A new served version of the dataset, or a new file of the collection, is what brings a table up to date.
    watches: [
      { kind: datasetKind, keysOf: requeued(sources, 'datasets') },
      { kind: featureCollectionKind, keysOf: requeued(sources, 'featureCollection') },
    ],
    observe: async (table, cluster, jobs) => {
      const { namespace } = table.metadata;
      const { source, featureCollection, populationDataset } = table.spec;
      if (table.metadata.deletionTimestamp) sources.delete(objectKey(table));
      else
        sources.set(objectKey(table), {
          namespace,
          datasets: [source.dataset, ...(populationDataset ? [populationDataset] : [])],
          featureCollection,
        });
      const name = table.status?.jobName;
      const get = (kind: typeof datasetKind, id: string | undefined) =>
        id === undefined ? Promise.resolve(undefined) : cluster.get(kind, id, namespace);
      return {
        job: name ? jobs?.get(name, namespace) : undefined,
        cleanup: table.metadata.deletionTimestamp ? jobs?.get(cleanupName(table), namespace) : undefined,
        dataset: await get(datasetKind, source.dataset),
        featureCollection: await get(featureCollectionKind, featureCollection),
        population: await get(datasetKind, populationDataset),
        storageRoot: instance.storageRoot,
        ...(backoff && { backoff }),
      };
    },
    plan: planAnalyticsTable,
    runKind: () => 'analytics-table',
  };
}
