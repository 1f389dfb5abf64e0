/**
 * An AnalyticsTable whose source is a Workflow with its parameters: the graph that calls it, the resources that
 * graph reads (the datasets it loads, found as a batch job's are), and the version of the whole source that the
 * table records and that the controller compares: the Workflow's generation and every loaded dataset's served
 * version. The controller and the worker both derive it here, so a finished build matches its target.
 */
import type { KubeObject, ObjectMeta } from '../cluster/objects.ts';
import type { ResourceReader } from '../processing/jobs/pinned.ts';
import { referencedResources } from '../processing/jobs/resolve.ts';
import { datasetKind } from '../resources/dataset/schema.ts';
import type { Workflow } from '../resources/workflow/schema.ts';

/** A process graph of one node: the workflow's process called with the table's arguments. */
export function workflowCallGraph(workflow: Workflow, parameters: Record<string, unknown>): Record<string, unknown> {
  return { source: { process_id: workflow.spec.id, arguments: parameters, result: true } };
}

/** The resources the call reads: the Workflow (and those it calls), the Datasets it loads and their DataSources. */
export const workflowInputs = (
  workflow: Workflow,
  parameters: Record<string, unknown>,
  cluster: ResourceReader,
  namespace: string | undefined,
): Promise<KubeObject[]> => referencedResources(workflowCallGraph(workflow, parameters), cluster, namespace);

const isDataset = (o: KubeObject) => o.apiVersion === datasetKind.apiVersion && o.kind === datasetKind.kind;

/** The Datasets among `inputs`. */
export const loadedDatasets = (inputs: readonly KubeObject[]): KubeObject[] => inputs.filter(isDataset);

/**
 * `<workflow>@<generation>,<dataset>@<version>,...` (datasets by name); undefined while the workflow loads no
 * dataset or one of them has no served version yet.
 */
export function workflowSourceVersion(workflow: Workflow, inputs: readonly KubeObject[]): string | undefined {
  const datasets = loadedDatasets(inputs).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const versions = datasets.map((d) => (d.status as { currentVersion?: string } | undefined)?.currentVersion);
  if (datasets.length === 0 || versions.some((v) => !v)) return undefined;
  const generation = (workflow.metadata as ObjectMeta).generation ?? 0;
  return [
    `${workflow.metadata.name}@${generation}`,
    ...datasets.map((d, i) => `${d.metadata.name}@${versions[i]!}`),
  ].join(',');
}
