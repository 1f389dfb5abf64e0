import type { KubeObject } from '../../../core/cluster/objects.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { collectReferences, noReferences } from '../../../core/processing/jobs/references.ts';
import { builtInRegistry } from '../../../core/processing/registry.ts';
import type { JobSplitOptions } from '../../../core/processing/jobs/split.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { featureCollectionKind } from '../../../core/resources/feature-collection/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import { workflowKind, type Workflow } from '../../../core/resources/workflow/schema.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { cleanupName, planProcessingJob, type ProcessingJobObserved } from './plan.ts';

/**
 * The resources the job's graph reads, with the workflows those call, transitively: what its attempt is given.
 * Names that resolve to nothing are left out; the engine then refuses the graph as it would in `POST /result`.
 */
async function referencedResources(job: ProcessingJob, cluster: Cluster): Promise<KubeObject[]> {
  const namespace = job.metadata.namespace;
  const registry = builtInRegistry();
  const isPredefined = (id: string) => registry.get(id) !== undefined;
  const references = collectReferences(
    (job.spec.process as { process_graph?: unknown }).process_graph,
    isPredefined,
    noReferences(),
  );
  const workflows: Workflow[] = [];
  if (references.processes.size > 0) {
    const all = (await cluster.list<Workflow>(workflowKind, { namespace })).items;
    const seen = new Set<string>();
    for (let added = true; added;) {
      added = false;
      for (const workflow of all)
        if (references.processes.has(workflow.spec.id) && !seen.has(workflow.metadata.name)) {
          seen.add(workflow.metadata.name);
          workflows.push(workflow);
          collectReferences(workflow.spec.processGraph, isPredefined, references);
          added = true;
        }
    }
  }
  const get = (kind: typeof datasetKind, names: Set<string>) =>
    Promise.all([...names].map((name) => cluster.get(kind, name, namespace)));
  // What the worker reads of them; managed fields and the like would only swell its input.
  const pinned = (o: KubeObject | undefined): KubeObject | undefined =>
    o && {
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: { name: o.metadata.name, namespace: o.metadata.namespace },
      spec: o.spec,
      status: o.status,
    };
  const datasets = await get(datasetKind, references.collections);
  const sources = new Set(datasets.flatMap((d) => (d ? [(d as Dataset).spec.source] : [])));
  const found = [
    ...datasets,
    // Their DataSources: the display that colours PNG results.
    ...(await get(dataSourceKind, sources)),
    ...(await get(featureCollectionKind, references.featureCollections)),
    ...workflows,
  ];
  return found.map(pinned).filter((o): o is KubeObject => o !== undefined);
}

/** Whether the plan may start an attempt, which needs what the graph reads. */
const mayStart = (job: ProcessingJob, observed: { job: unknown }) =>
  (job.status?.phase === 'queued' || job.status?.phase === 'running') &&
  job.spec.queuedAt === job.status.queuedAt &&
  !job.spec.cancelRequested &&
  !job.metadata.deletionTimestamp &&
  observed.job === undefined;

export function processingJobController(
  instance: { storageRoot: string },
  split?: JobSplitOptions,
): ControllerDefinition<ProcessingJob, ProcessingJobObserved> {
  return {
    name: 'processing-job',
    kind: processingJobKind,
    observe: async (job, cluster, jobs) => {
      const name = job.status?.jobName;
      const state = name ? jobs?.get(name, job.metadata.namespace) : undefined;
      return {
        job: state,
        cleanup: job.metadata.deletionTimestamp ? jobs?.get(cleanupName(job), job.metadata.namespace) : undefined,
        resources: mayStart(job, { job: state }) ? await referencedResources(job, cluster) : [],
        storageRoot: instance.storageRoot,
        ...(split && { split }),
      };
    },
    plan: planProcessingJob,
    runKind: () => 'processing',
  };
}
