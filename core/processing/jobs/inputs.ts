/**
 * The dataset versions a batch job's run reads (`status.inputs`), worked out from its process graph and the
 * resources pinned for its attempt (`resolve.ts`): what provenance records and what retention keeps while it runs.
 */
import type { KubeObject } from '../../cluster/objects.ts';
import { datasetKind, type Dataset } from '../../resources/dataset/schema.ts';
import { namedVersionOf, resolveVersion } from '../../resources/dataset/served-version.ts';
import type { JobInput } from '../../resources/processing-job/schema.ts';
import type { Workflow } from '../../resources/workflow/schema.ts';
import { workflowKind } from '../../resources/workflow/schema.ts';
import { builtInRegistry } from '../registry.ts';
import { collectReferences, noReferences } from './references.ts';

/**
 * For each dataset the graph (or a workflow it calls) loads: the retained versions its `load_collection` property
 * filters name, or the served version when they name none.
 */
export function jobInputs(processGraph: unknown, resources: readonly KubeObject[]): JobInput[] {
  const registry = builtInRegistry();
  const isPredefined = (id: string) => registry.get(id) !== undefined;
  const references = collectReferences(processGraph, isPredefined, noReferences());
  for (const o of resources)
    if (o.kind === workflowKind.kind) collectReferences((o as Workflow).spec.processGraph, isPredefined, references);
  const inputs: JobInput[] = [];
  for (const o of resources) {
    if (o.kind !== datasetKind.kind || !references.collections.has(o.metadata.name)) continue;
    const dataset = o as Dataset;
    const names = [...(references.collectionVersions.get(dataset.metadata.name) ?? [])];
    const named = names.flatMap((name) => namedVersionOf(dataset, name) ?? []);
    const versions = named.length > 0 ? named : [resolveVersion(dataset).version ?? []].flat();
    for (const version of new Set(versions.map((v) => v.id))) inputs.push({ dataset: dataset.metadata.name, version });
  }
  return inputs;
}
