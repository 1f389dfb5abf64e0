import { creationTimestamp } from '../../../core/cluster/objects.ts';
import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { datasetIdOf, isFinished } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import {
  defaultIngestionPlanOptions,
  jobNameFor,
  planIngestion,
  type IngestionObserved,
  type IngestionPlanOptions,
} from './plan.ts';

/** Creation order, with the name breaking ties, so that of two runs exactly one counts as first. */
function createdBefore(a: Ingestion, b: Ingestion): boolean {
  const [x, y] = [creationTimestamp(a), creationTimestamp(b)];
  return x < y || (x === y && a.metadata.name < b.metadata.name);
}

export function ingestionController(
  instance: IngestionObserved['instance'],
  options: IngestionPlanOptions = defaultIngestionPlanOptions,
): ControllerDefinition<Ingestion, IngestionObserved> {
  return {
    name: 'ingestion',
    kind: ingestionKind,
    observe: async (run, cluster, jobs) => ({
      source: await cluster.get<DataSource>(dataSourceKind, run.spec.source, run.metadata.namespace),
      ...(run.spec.mode === 'feature-refresh'
        ? {
            dataset: undefined,
            collection: await cluster.get<FeatureCollection>(
              featureCollectionKind,
              datasetIdOf(run),
              run.metadata.namespace,
            ),
          }
        : { dataset: await cluster.get<Dataset>(datasetKind, datasetIdOf(run), run.metadata.namespace) }),
      earlierWriters: run.status?.jobName
        ? []
        : (await cluster.list<Ingestion>(ingestionKind, { namespace: run.metadata.namespace })).items
            .filter(
              (other) => datasetIdOf(other) === datasetIdOf(run) && !isFinished(other) && createdBefore(other, run),
            )
            .map((other) => other.metadata.name),
      job: jobs?.get(jobNameFor(run, run.status?.attempt ?? 1)),
      instance,
    }),
    plan: (run, observed, now) => planIngestion(run, observed, now, options),
  };
}
