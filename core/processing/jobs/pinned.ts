/**
 * A read-only view of a few resources as the planner saw them, with the reads of the Cluster port that the engine's
 * resolvers make (`get`, `list`): how a batch job's worker loads collections, feature collections and user-defined
 * processes without a connection to the cluster.
 */
import type { KindRef, KubeObject } from '../../cluster/objects.ts';
import type { Cluster, ListOptions, ObjectList } from '../../cluster/port.ts';

export type ResourceReader = Pick<Cluster, 'get' | 'list'>;

export function pinnedResources(objects: readonly KubeObject[]): ResourceReader {
  const of = (kind: KindRef, namespace?: string) =>
    objects.filter(
      (o) =>
        o.apiVersion === kind.apiVersion &&
        o.kind === kind.kind &&
        (namespace === undefined || o.metadata.namespace === namespace),
    );
  return {
    get: async <T extends KubeObject>(kind: KindRef, name: string, namespace?: string) =>
      of(kind, namespace).find((o) => o.metadata.name === name) as T | undefined,
    list: async <T extends KubeObject>(kind: KindRef, options: ListOptions = {}): Promise<ObjectList<T>> => {
      if (options.labelSelector) throw new Error('pinned resources are not listed by label');
      return { items: of(kind, options.namespace) as T[], resourceVersion: '0' };
    },
  };
}
