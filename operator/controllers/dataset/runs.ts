import type { InformerCaches } from '../../../core/cluster/informer-caches.ts';
import { objectKey } from '../../../core/cluster/objects.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { DATASET_LABEL } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';

/** The index of the Ingestion cache by the dataset a run is labelled with (`namespace/dataset`). */
export const RUNS_BY_DATASET = 'dataset';

/** How long a reconcile waits for the cache to see this process's writes of runs before it lists them instead. */
export const RUNS_CATCH_UP_MS = 2_000;

const datasetOf = (run: Ingestion): string[] => {
  const dataset = (run.metadata.labels as Record<string, string> | undefined)?.[DATASET_LABEL];
  return dataset ? [objectKey({ metadata: { namespace: run.metadata.namespace, name: dataset } })] : [];
};

/**
 * The runs labelled with a dataset (the API and schedules label every run they start), by name: from the shared
 * Ingestion cache's index, once the cache has seen every run this process created, changed or deleted (so a run a
 * schedule just started counts as running, and a run just deleted past the history limits is not planned twice).
 * A cache that cannot catch up in time (the store slow or down) gives way to a list by label, which scans the
 * namespace's runs: correct, only slower.
 */
export async function datasetRuns(
  caches: InformerCaches,
  cluster: Cluster,
  namespace: string | undefined,
  dataset: string,
): Promise<Ingestion[]> {
  const cache = caches.of<Ingestion>(ingestionKind, namespace);
  cache.addIndex(RUNS_BY_DATASET, datasetOf);
  const runs = (await cache.catchUp(RUNS_CATCH_UP_MS))
    ? cache.byIndex(RUNS_BY_DATASET, objectKey({ metadata: { namespace, name: dataset } }))
    : (await cluster.list<Ingestion>(ingestionKind, { namespace, labelSelector: `${DATASET_LABEL}=${dataset}` })).items;
  return runs.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
}
