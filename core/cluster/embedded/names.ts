import { ApiError } from '../errors.ts';
import type { KindRef } from '../objects.ts';

/** Names and namespaces as the API server validates them, with its error messages. */

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DEFAULT_NAMESPACE = 'default';

/** The namespace an object of `ref` lives in: none for a cluster-scoped kind, `default` when none is given. */
export function namespaceOf(ref: KindRef, namespace: string | undefined): string | undefined {
  if (!ref.namespaced) return undefined;
  const ns = namespace || DEFAULT_NAMESPACE;
  if (!LABEL.test(ns) || ns.length > 63) {
    throw new ApiError('Invalid', `namespace "${ns}" is invalid`, [
      { field: 'metadata.namespace', message: 'must be a DNS-1123 label' },
    ]);
  }
  return ns;
}

export function checkName(ref: KindRef, name: string | undefined): string {
  if (!name || name.length > 253 || !SUBDOMAIN.test(name)) {
    throw new ApiError(
      'Invalid',
      `${ref.kind} "${name ?? ''}" is invalid: metadata.name must be a DNS-1123 subdomain`,
      [
        {
          field: 'metadata.name',
          message: "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
        },
      ],
    );
  }
  return name;
}
