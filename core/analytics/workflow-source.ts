/**
 * An AnalyticsTable whose source is a Workflow with its parameters: the graph that calls it, the resources that
 * graph reads (the datasets it loads, found as a batch job's are), and the version of the whole source that the
 * table records and that the controller compares: the Workflow's generation and every loaded dataset's served
 * version. The controller and the worker both derive it here, so a finished build matches its target. A dataset the
 * workflow loads through a parameter (`load_collection` with `{"from_parameter": "collection"}`) is the table's
 * argument for it, or the parameter's default.
 */
import type { KubeObject, ObjectMeta } from '../cluster/objects.ts';
import type { ResourceReader } from '../processing/jobs/pinned.ts';
import { isObject } from '../processing/jobs/references.ts';
import { referencedResources } from '../processing/jobs/resolve.ts';
import { datasetKind } from '../resources/dataset/schema.ts';
import type { Workflow } from '../resources/workflow/schema.ts';

/** A process graph of one node: the workflow's process called with the table's arguments. */
export function workflowCallGraph(workflow: Workflow, parameters: Record<string, unknown>): Record<string, unknown> {
  return { source: { process_id: workflow.spec.id, arguments: parameters, result: true } };
}

/** The value of a workflow parameter in a call with `parameters`: the argument, else the parameter's default. */
function parameterValue(workflow: Workflow, parameters: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(parameters, name)) return parameters[name];
  return workflow.spec.parameters?.find((parameter) => parameter.name === name)?.default;
}

/**
 * The collections the workflow's `load_collection` nodes (in its graph and its callbacks') name through its
 * parameters, `{"from_parameter": "collection"}`, in a call with `parameters`: `ids`, those that resolve to a
 * collection id, and `unset`, the parameters that have no value (no argument and no default).
 */
export function parameterCollections(
  workflow: Workflow,
  parameters: Record<string, unknown>,
): { ids: string[]; unset: string[] } {
  const ids = new Set<string>();
  const unset = new Set<string>();
  const visit = (graph: unknown) => {
    if (!isObject(graph)) return;
    for (const node of Object.values(graph)) {
      if (!isObject(node)) continue;
      const args = isObject(node.arguments) ? node.arguments : {};
      const name = isObject(args.id) ? args.id.from_parameter : undefined;
      if (node.process_id === 'load_collection' && typeof name === 'string') {
        const value = parameterValue(workflow, parameters, name);
        if (typeof value === 'string') ids.add(value);
        else unset.add(name);
      }
      for (const value of Object.values(args)) if (isObject(value)) visit(value.process_graph);
    }
  };
  visit(workflow.spec.processGraph);
  return { ids: [...ids], unset: [...unset] };
}

/** Why the call cannot be built: a collection named through a parameter without a value; undefined when it can. */
export function workflowSourceProblem(workflow: Workflow, parameters: Record<string, unknown>): string | undefined {
  const { unset } = parameterCollections(workflow, parameters);
  if (unset.length === 0) return undefined;
  return `Workflow ${workflow.metadata.name} loads the collection named by its parameter ${unset.join(', ')}, which has no value: give it in spec.source.workflow.parameters (or a default in the Workflow).`;
}

/**
 * The resources the call reads: the Workflow (and those it calls), the Datasets it loads and their DataSources.
 * The datasets the workflow names through its parameters are read with the call's arguments: the graph whose
 * references are resolved (as a batch job's are) loads them too, though the call itself names only the workflow.
 */
export function workflowInputs(
  workflow: Workflow,
  parameters: Record<string, unknown>,
  cluster: ResourceReader,
  namespace: string | undefined,
): Promise<KubeObject[]> {
  const loads = parameterCollections(workflow, parameters).ids.map((id, i) => [
    `parameter_collection_${i}`,
    { process_id: 'load_collection', arguments: { id } },
  ]);
  const graph = { ...workflowCallGraph(workflow, parameters), ...Object.fromEntries(loads) };
  return referencedResources(graph, cluster, namespace);
}

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
