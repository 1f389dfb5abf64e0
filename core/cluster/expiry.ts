import type { KindRef, KubeObject } from './objects.ts';

/**
 * Objects that expire, and the plan of a collector that removes the expired ones: the authorization server's
 * records (`core/auth/store/expiry.ts`) and, in embedded mode, Events (which a Kubernetes API server expires
 * itself).
 */
export interface CollectedKind {
  ref: KindRef;
  /** When the object may be removed; undefined keeps it. */
  expiry(object: KubeObject): Date | undefined;
}

export interface Removal {
  ref: KindRef;
  name: string;
  namespace?: string;
  /** Delete only this version: an object changed since it was listed is looked at again next time. */
  resourceVersion?: string;
  reason: string;
}

/** The objects of one kind to remove now, each with why. */
export function planCollection(kind: CollectedKind, objects: readonly KubeObject[], now: Date): Removal[] {
  return objects.flatMap((object) => {
    const expiry = kind.expiry(object);
    if (!expiry || Number.isNaN(expiry.getTime()) || now.getTime() < expiry.getTime()) return [];
    return [
      {
        ref: kind.ref,
        name: object.metadata.name,
        namespace: object.metadata.namespace,
        resourceVersion: object.metadata.resourceVersion,
        reason: `expired at ${expiry.toISOString()}`,
      },
    ];
  });
}
