import type { KindRef, KubeObject } from '../../cluster/objects.ts';
import { initialAccessTokenKind } from '../../resources/initial-access-token/schema.ts';
import { oauth2AuthorizationKind, type OAuth2Authorization } from '../../resources/oauth2-authorization/schema.ts';
import { oauth2ClientAssertionKind } from '../../resources/oauth2-client-assertion/schema.ts';
import { sessionKind } from '../../resources/session/schema.ts';
import { authorizationExpiry } from './authorizations.ts';

/**
 * When each record of the authorization server has served its purpose, and the plan of the collector that
 * removes the expired ones. A record outlives its last token by a grace period longer than the verification
 * leeway, so a replay of an expired token is still recognised while any check could accept it. Consents do
 * not expire.
 */
export const COLLECTION_GRACE_MS = 5 * 60_000;

export interface CollectedKind {
  ref: KindRef;
  /** When the object's last token expires; undefined keeps it. */
  expiry(object: KubeObject): Date | undefined;
}

const specExpiry = (object: KubeObject): Date | undefined => {
  const at = (object.spec as { expiresAt?: string } | undefined)?.expiresAt;
  return at ? new Date(at) : undefined;
};

export const COLLECTED_KINDS: readonly CollectedKind[] = [
  { ref: oauth2AuthorizationKind, expiry: (o) => authorizationExpiry(o as unknown as OAuth2Authorization) },
  { ref: sessionKind, expiry: specExpiry },
  { ref: oauth2ClientAssertionKind, expiry: specExpiry },
  { ref: initialAccessTokenKind, expiry: specExpiry },
];

export interface Removal {
  ref: KindRef;
  name: string;
  namespace?: string;
  /** Delete only this version: a record changed since it was listed is looked at again next time. */
  resourceVersion?: string;
  reason: string;
}

/** The records of one kind to remove now, each with why. */
export function planCollection(kind: CollectedKind, objects: readonly KubeObject[], now: Date): Removal[] {
  return objects.flatMap((object) => {
    const expiry = kind.expiry(object);
    if (!expiry || Number.isNaN(expiry.getTime()) || now.getTime() < expiry.getTime() + COLLECTION_GRACE_MS) return [];
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
