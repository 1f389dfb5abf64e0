import { creationTimestamp } from '../../../core/cluster/objects.ts';
import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { datasetIdOf, isFinished } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { committedRange, readCurrentCube } from '../../../core/sync/committed.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { jobNameFor } from './attempt.ts';
import type { IngestionObserved } from './observed.ts';
import { defaultIngestionPlanOptions, type IngestionPlanOptions } from './options.ts';
import { planIngestion } from './plan.ts';

/** Creation order, with the name breaking ties, so that of two runs exactly one counts as first. */
function createdBefore(a: Ingestion, b: Ingestion): boolean {
  const [x, y] = [creationTimestamp(a), creationTimestamp(b)];
  return x < y || (x === y && a.metadata.name < b.metadata.name);
}

/** What the store committed, for a sync run that may start an attempt (sync-range.ts decides from it). */
async function observeCommitted(
  run: Ingestion,
  dataset: Dataset | undefined,
  storageRoot: string,
): Promise<IngestionObserved['committed']> {
  if (run.spec.mode !== 'sync' || isFinished(run) || !dataset) return undefined;
  try {
    return committedRange(await readCurrentCube(storageRoot, dataset));
  } catch (err) {
    return {
      error: `The committed store of dataset ${dataset.metadata.name} cannot be read: ${(err as Error).message}`,
    };
  }
}

export function ingestionController(
  instance: IngestionObserved['instance'],
  options: IngestionPlanOptions = defaultIngestionPlanOptions,
): ControllerDefinition<Ingestion, IngestionObserved> {
  return {
    name: 'ingestion',
    kind: ingestionKind,
    observe: async (run, cluster, jobs) => {
      const { namespace } = run.metadata;
      const featureRefresh = run.spec.mode === 'feature-refresh';
      const dataset = featureRefresh ? undefined : await cluster.get<Dataset>(datasetKind, datasetIdOf(run), namespace);
      return {
        source: await cluster.get<DataSource>(dataSourceKind, run.spec.source, namespace),
        dataset,
        ...(featureRefresh && {
          collection: await cluster.get<FeatureCollection>(featureCollectionKind, datasetIdOf(run), namespace),
        }),
        committed: await observeCommitted(run, dataset, instance.storageRoot),
        earlierWriters: run.status?.jobName
          ? []
          : (await cluster.list<Ingestion>(ingestionKind, { namespace })).items
              .filter(
                (other) => datasetIdOf(other) === datasetIdOf(run) && !isFinished(other) && createdBefore(other, run),
              )
              .map((other) => other.metadata.name),
        job: jobs?.get(jobNameFor(run, run.status?.attempt ?? 1), namespace),
        instance,
      };
    },
    plan: (run, observed, now) => planIngestion(run, observed, now, options),
  };
}
