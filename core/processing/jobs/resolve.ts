/** Resolving a graph's references (`references.ts`) into the resources they name, for pinning (`pinned.ts`). */
import type { KubeObject } from '../../cluster/objects.ts';
import { dataSourceKind } from '../../resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../resources/dataset/schema.ts';
import { featureCollectionKind } from '../../resources/feature-collection/schema.ts';
import { workflowKind, type Workflow } from '../../resources/workflow/schema.ts';
import { builtInRegistry } from '../registry.ts';
import type { ResourceReader } from './pinned.ts';
import { collectReferences, noReferences } from './references.ts';

/**
 * The resources a process graph reads in `namespace`, with the workflows it calls, transitively: what a batch
 * job's attempt and a synchronous run's worker thread are given, so that they read without the cluster. Names
 * that resolve to nothing are left out; the engine then refuses the graph (`CollectionNotFound`, ...).
 */
export async function referencedResources(
  processGraph: unknown,
  cluster: ResourceReader,
  namespace: string | undefined,
): Promise<KubeObject[]> {
  const registry = builtInRegistry();
  const isPredefined = (id: string) => registry.get(id) !== undefined;
  const references = collectReferences(processGraph, isPredefined, noReferences());
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
