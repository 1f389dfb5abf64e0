import type { Cluster } from '../../../core/cluster/port.ts';
import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { datasetIdOf, isFinished } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { claimWriter } from '../../../core/resources/writer-claim/claim.ts';
import { committedRange, readCurrentCube } from '../../../core/sync/committed.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { triggeredBy } from '../../../core/processing/jobs/triggers.ts';
import { workflowKind, type Workflow } from '../../../core/resources/workflow/schema.ts';
import { jobNameFor } from './attempt.ts';
import type { IngestionObserved } from './observed.ts';
import { defaultRunOptions, type RunOptions } from '../../../core/runs/options.ts';
import { planIngestion } from './plan.ts';

/**
 * The run that writes the target instead of `run`, if any. A run that has not started claims the target's
 * WriterClaim here (the API claims it before creating its runs; a run applied as a resource is claimed when the operator
 * first sees it): whichever holds it writes, the others wait for it. A started run claimed it before starting.
 */
async function otherWriter(run: Ingestion, cluster: Cluster): Promise<string[]> {
  if (run.status?.jobName || isFinished(run)) return [];
  const claim = await claimWriter(cluster, run.metadata.namespace ?? 'default', datasetIdOf(run), run.metadata.name);
  return claim.claimed ? [] : [claim.holder];
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
  options: RunOptions = defaultRunOptions,
): ControllerDefinition<Ingestion, IngestionObserved> {
  return {
    name: 'ingestion',
    kind: ingestionKind,
    observe: async (run, cluster, jobs) => {
      const { namespace } = run.metadata;
      const featureRefresh = run.spec.mode === 'feature-refresh';
      const dataset = featureRefresh ? undefined : await cluster.get<Dataset>(datasetKind, datasetIdOf(run), namespace);
      const job = jobs?.get(jobNameFor(run, run.status?.attempt ?? 1), namespace);
      return {
        source: await cluster.get<DataSource>(dataSourceKind, run.spec.source, namespace),
        dataset,
        ...(featureRefresh && {
          collection: await cluster.get<FeatureCollection>(featureCollectionKind, datasetIdOf(run), namespace),
        }),
        committed: await observeCommitted(run, dataset, instance.storageRoot),
        earlierWriters: await otherWriter(run, cluster),
        job,
        instance,
        ...(job?.phase === 'succeeded' &&
          !featureRefresh &&
          !isFinished(run) && {
            workflows: triggeredBy((await cluster.list<Workflow>(workflowKind, { namespace })).items, datasetIdOf(run)),
          }),
      };
    },
    plan: (run, observed, now) => planIngestion(run, observed, now, options),
    runKind: (run) => run.spec.mode,
  };
}
