/**
 * What a process graph reads from the cluster, found before it runs: the datasets its `load_collection` nodes name,
 * the feature collections of its `load_features` nodes (and both of the predefined export workflows'), and the processes it calls that are not predefined
 * (user-defined, stored as Workflows). A batch job pins these at its start (`pinned.ts`), so that its worker reads
 * the versions that were served when it was queued and needs no access to the cluster.
 */
import { EXPORT_WORKFLOWS } from '../processes/cube/export-workflows.ts';

export interface GraphReferences {
  collections: Set<string>;
  /**
   * By collection, the strings a `load_collection` property filter on `version` compares with: the names of the
   * versions it may select (docs/processing.md#dataset-versions).
   */
  collectionVersions: Map<string, Set<string>>;
  featureCollections: Set<string>;
  processes: Set<string>;
}

export const noReferences = (): GraphReferences => ({
  collections: new Set(),
  collectionVersions: new Map(),
  featureCollections: new Set(),
  processes: new Set(),
});

/** Every string literal inside `value`. */
function stringsIn(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, into);
  else if (isObject(value)) for (const member of Object.values(value)) stringsIn(member, into);
  return into;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Adds what `processGraph` (and its callbacks' graphs) refers to into `into`; `isPredefined` tells processes apart. */
export function collectReferences(
  processGraph: unknown,
  isPredefined: (id: string) => boolean,
  into: GraphReferences = noReferences(),
): GraphReferences {
  if (!isObject(processGraph)) return into;
  for (const node of Object.values(processGraph)) {
    if (!isObject(node) || typeof node.process_id !== 'string') continue;
    const args = isObject(node.arguments) ? node.arguments : {};
    if (node.process_id === 'load_collection' && typeof args.id === 'string') {
      into.collections.add(args.id);
      const filter = isObject(args.properties) ? args.properties.version : undefined;
      if (filter !== undefined) {
        const names = into.collectionVersions.get(args.id) ?? new Set<string>();
        into.collectionVersions.set(args.id, stringsIn(filter, names));
      }
    } else if (node.process_id === 'load_features' && typeof args.id === 'string') into.featureCollections.add(args.id);
    else if ((EXPORT_WORKFLOWS as readonly string[]).includes(node.process_id)) {
      if (Array.isArray(args.datasets))
        for (const id of args.datasets) if (typeof id === 'string') into.collections.add(id);
      if (typeof args.features === 'string') into.featureCollections.add(args.features);
    } else if (!isPredefined(node.process_id)) into.processes.add(node.process_id);
    visitArguments(args, isPredefined, into);
  }
  return into;
}

function visitArguments(value: unknown, isPredefined: (id: string) => boolean, into: GraphReferences): void {
  if (Array.isArray(value)) for (const item of value) visitArguments(item, isPredefined, into);
  else if (isObject(value)) {
    if (isObject(value.process_graph)) collectReferences(value.process_graph, isPredefined, into);
    else for (const member of Object.values(value)) visitArguments(member, isPredefined, into);
  }
}
