import { creationTimestamp, objectKey, type KubeObject } from '../../../core/cluster/objects.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { datasetIdOf, isFinished } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { planFeatureCollection, type FeatureCollectionObserved } from './plan.ts';

const isRefresh = (run: Ingestion) => run.spec.mode === 'feature-refresh';

/**
 * Runs in creation order. Creation timestamps have whole seconds, so runs created in the same second are ordered
 * by when they started (milliseconds), a run not started yet coming last.
 */
const newestLast = (a: Ingestion, b: Ingestion) =>
  creationTimestamp(a).localeCompare(creationTimestamp(b)) ||
  (a.status?.startedAt ?? '\uffff').localeCompare(b.status?.startedAt ?? '\uffff') ||
  a.metadata.name.localeCompare(b.metadata.name);

/** Summarizes each collection's readiness; its refresh runs' changes requeue it. */
export const featureCollectionController: ControllerDefinition<FeatureCollection, FeatureCollectionObserved> = {
  name: 'featurecollection',
  kind: featureCollectionKind,
  watches: [
    {
      kind: ingestionKind,
      keysOf: (object: KubeObject) => {
        const run = object as Ingestion;
        return isRefresh(run)
          ? [objectKey({ metadata: { namespace: run.metadata.namespace, name: datasetIdOf(run) } })]
          : [];
      },
    },
  ],
  observe: async (collection, cluster) => {
    const { namespace, name } = collection.metadata;
    const { items } = await cluster.list<Ingestion>(ingestionKind, { namespace });
    const latest = items
      .filter((run) => isRefresh(run) && datasetIdOf(run) === name)
      .sort(newestLast)
      .at(-1);
    return {
      sourceExists:
        !collection.spec.source || (await cluster.get(dataSourceKind, collection.spec.source, namespace)) !== undefined,
      latestRun: latest && {
        name: latest.metadata.name,
        finished: isFinished(latest),
        ...(latest.status?.phase && { phase: latest.status.phase }),
        ...(latest.status?.error && { error: latest.status.error }),
      },
    };
  },
  plan: planFeatureCollection,
};
