import { loadedDatasets, workflowInputs, workflowSourceProblem } from '../../../core/analytics/workflow-source.ts';
import { objectKey, type KubeObject, type ObjectMeta } from '../../../core/cluster/objects.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { analyticsTableKind, type AnalyticsTable } from '../../../core/resources/analytics-table/schema.ts';
import { deliveredTableVersions } from '../../../core/resources/analytics-table/retention.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { deliveryKind, type Delivery } from '../../../core/resources/delivery/schema.ts';
import { featureCollectionKind } from '../../../core/resources/feature-collection/schema.ts';
import { workflowKind, type Workflow } from '../../../core/resources/workflow/schema.ts';
import type { RetryBackoff } from '../../../core/runs/backoff.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { planAnalyticsTable } from './plan.ts';
import { cleanupName, type AnalyticsTableObserved } from './steps.ts';

/**
 * The Datasets, FeatureCollection and Workflow each table reads, by table key: what a change of one of them
 * requeues. A workflow source's datasets are those its call loads, as last observed.
 */
type Sources = Map<
  string,
  { namespace: string | undefined; datasets: string[]; featureCollection: string; workflow: string | undefined }
>;

function requeued(sources: Sources, kind: 'datasets' | 'featureCollection' | 'workflow') {
  return (object: KubeObject) =>
    [...sources]
      .filter(
        ([, s]) =>
          s.namespace === object.metadata.namespace &&
          (kind === 'datasets' ? s.datasets.includes(object.metadata.name) : s[kind] === object.metadata.name),
      )
      .map(([key]) => key);
}

/** A workflow source's Workflow and what its call reads, as the worker is handed them. */
async function observeWorkflow(
  source: { name: string; parameters: Record<string, unknown> },
  cluster: Cluster,
  namespace: string | undefined,
): Promise<NonNullable<AnalyticsTableObserved['workflow']>> {
  const found = await cluster.get<Workflow>(workflowKind, source.name, namespace);
  if (!found) return { object: undefined, inputs: [] };
  const { apiVersion, kind, metadata, spec } = found;
  const object = {
    apiVersion,
    kind,
    metadata: { name: metadata.name, namespace: metadata.namespace, generation: (metadata as ObjectMeta).generation },
    spec,
  } as Workflow;
  const problem = workflowSourceProblem(found, source.parameters);
  return {
    object,
    inputs: await workflowInputs(found, source.parameters, cluster, namespace),
    ...(problem !== undefined && { problem }),
  };
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
      { kind: workflowKind, keysOf: requeued(sources, 'workflow') },
    ],
    observe: async (table, cluster, jobs) => {
      const { namespace } = table.metadata;
      const { source, featureCollection, populationDataset } = table.spec;
      const workflow = source.workflow && (await observeWorkflow(source.workflow, cluster, namespace));
      if (table.metadata.deletionTimestamp) sources.delete(objectKey(table));
      else
        sources.set(objectKey(table), {
          namespace,
          datasets: [
            ...(source.dataset ? [source.dataset] : []),
            ...(workflow ? loadedDatasets(workflow.inputs).map((d) => d.metadata.name) : []),
            ...(populationDataset ? [populationDataset] : []),
          ],
          featureCollection,
          workflow: source.workflow?.name,
        });
      const name = table.status?.jobName;
      const job = name ? jobs?.get(name, namespace) : undefined;
      const get = (kind: typeof datasetKind, id: string | undefined) =>
        id === undefined ? Promise.resolve(undefined) : cluster.get(kind, id, namespace);
      // Only an attempt about to start removes versions (`keep`): only then do the deliveries matter.
      const deliveries = name && !job ? (await cluster.list<Delivery>(deliveryKind, { namespace })).items : [];
      return {
        job,
        cleanup: table.metadata.deletionTimestamp ? jobs?.get(cleanupName(table), namespace) : undefined,
        dataset: await get(datasetKind, source.dataset),
        featureCollection: await get(featureCollectionKind, featureCollection),
        population: await get(datasetKind, populationDataset),
        ...(workflow && { workflow }),
        storageRoot: instance.storageRoot,
        deliveredVersions: deliveredTableVersions(table.metadata.name, deliveries),
        ...(backoff && { backoff }),
      };
    },
    plan: planAnalyticsTable,
    runKind: () => 'analytics-table',
  };
}
