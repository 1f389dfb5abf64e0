/**
 * User-defined processes (openEO's `/process_graphs`) stored as `Workflow` resources, so that they are applied
 * with kubectl or GitOps as well as through the API. A Workflow holds one process by `spec.id`; the API names the
 * resources it creates after the id (`workflowName`), and finds a process by id whatever its resource is named.
 */
import { createHash } from 'node:crypto';
import { isApiError } from '../cluster/errors.ts';
import type { Cluster } from '../cluster/port.ts';
import type { ResourceReader } from './jobs/pinned.ts';
import { API_VERSION } from '../resources/registry.ts';
import { workflowKind, type Workflow } from '../resources/workflow/schema.ts';
import type { UserProcess, UserProcessResolver } from './graph/types.ts';

/**
 * A DNS-1123 resource name for a process id (`^\w+$`): lower case with `-` for `_`, and, unless that is the id
 * itself, a short digest of the id so that `NDVI` and `ndvi` stay apart.
 */
export function workflowName(id: string): string {
  const slug =
    id
      .toLowerCase()
      .replace(/_/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'process';
  return slug === id ? id : `${slug}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
}

export function userProcessOf(workflow: Workflow): UserProcess {
  const { id, summary, description, parameters, returns, processGraph } = workflow.spec;
  return {
    id,
    ...(summary !== undefined && { summary }),
    ...(description !== undefined && { description }),
    ...(parameters !== undefined && { parameters: parameters as unknown as UserProcess['parameters'] }),
    ...(returns !== undefined && { returns: returns as unknown as UserProcess['returns'] }),
    process_graph: processGraph as UserProcess['process_graph'],
  };
}

export function workflowOf(process: UserProcess, name: string, namespace: string): Workflow {
  const { id, summary, description, parameters, returns, process_graph } = process;
  return {
    apiVersion: API_VERSION,
    kind: 'Workflow',
    metadata: { name, namespace },
    spec: {
      id,
      ...(summary !== undefined && { summary }),
      ...(description !== undefined && { description }),
      ...(parameters !== undefined && { parameters: parameters as unknown as Record<string, unknown>[] }),
      ...(returns !== undefined && { returns: returns as unknown as Record<string, unknown> }),
      processGraph: process_graph as Record<string, unknown>,
    },
  } as Workflow;
}

/** Tries of one replacement: each one lost means that a concurrent write of the same process landed meanwhile. */
const REPLACE_ATTEMPTS = 100;

/**
 * Stores `process` as the whole of its Workflow's process, by compare-and-swap on `metadata.resourceVersion`: nothing
 * of the process stored before stays (an apply would merge the two graphs' nodes). What the Workflow holds beside
 * the openEO process stays: its name, labels, annotations and `spec.triggers`. A write that loses the swap to a
 * concurrent one reads again and retries, so of concurrent writes the last to land is stored, whole.
 */
export async function replaceWorkflow(
  cluster: Pick<Cluster, 'get' | 'list' | 'create' | 'update'>,
  namespace: string,
  process: UserProcess,
): Promise<Workflow> {
  const workflows = storedWorkflows(cluster, namespace);
  for (let attempt = 1; ; attempt++) {
    const existing = await workflows.find(process.id);
    try {
      if (!existing)
        return await cluster.create<Workflow>(workflowKind, workflowOf(process, workflowName(process.id), namespace));
      const { spec } = workflowOf(process, existing.metadata.name, namespace);
      const { triggers } = existing.spec;
      return await cluster.update<Workflow>(workflowKind, {
        ...existing,
        spec: { ...spec, ...(triggers !== undefined && { triggers }) },
      });
    } catch (err) {
      const lost = isApiError(err, 'Conflict') || isApiError(err, 'AlreadyExists') || isApiError(err, 'NotFound');
      if (!lost || attempt === REPLACE_ATTEMPTS) throw err;
    }
  }
}

export interface StoredWorkflows extends UserProcessResolver {
  /** Every stored process, by id; of two Workflows with one id, the one whose name sorts first. */
  list(): Promise<UserProcess[]>;
  /** The Workflow that holds process `id`, if any. */
  find(id: string): Promise<Workflow | undefined>;
}

export function storedWorkflows(cluster: ResourceReader, namespace: string): StoredWorkflows {
  const find = async (id: string) => {
    const named = await cluster.get<Workflow>(workflowKind, workflowName(id), namespace);
    if (named?.spec.id === id) return named;
    const { items } = await cluster.list<Workflow>(workflowKind, { namespace });
    return items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).find((w) => w.spec.id === id);
  };
  return {
    find,
    async get(id) {
      const workflow = await find(id);
      return workflow && userProcessOf(workflow);
    },
    async list() {
      const { items } = await cluster.list<Workflow>(workflowKind, { namespace });
      return userProcessesOf(items).sort((a, b) => a.id.localeCompare(b.id));
    },
  };
}

/** The processes these Workflows hold, one per id: of two Workflows with one id, the one whose name sorts first. */
export function userProcessesOf(workflows: readonly Workflow[]): UserProcess[] {
  const byId = new Map<string, UserProcess>();
  for (const w of [...workflows].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)))
    if (!byId.has(w.spec.id)) byId.set(w.spec.id, userProcessOf(w));
  return [...byId.values()];
}
