import type { KindRef } from '../objects.ts';

/** The namespace Kubernetes assumes for a namespaced object that names none. */
export const DEFAULT_NAMESPACE = 'default';

/** REST path of a kind's collection: `/api/v1/...` for the core group, `/apis/<group>/<version>/...` else. */
export function collectionPath(kind: KindRef, namespace: string | undefined): string {
  const root = kind.apiVersion.includes('/') ? `/apis/${kind.apiVersion}` : `/api/${kind.apiVersion}`;
  const scope = kind.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${root}${scope}/${kind.plural}`;
}

/** REST path of one object, or of its subresource (`status`). */
export function objectPath(kind: KindRef, name: string, namespace: string | undefined, subresource?: string): string {
  const ns = kind.namespaced ? (namespace ?? DEFAULT_NAMESPACE) : undefined;
  const path = `${collectionPath(kind, ns)}/${encodeURIComponent(name)}`;
  return subresource ? `${path}/${subresource}` : path;
}
