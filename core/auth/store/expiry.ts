import type { CollectedKind } from '../../cluster/expiry.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import { initialAccessTokenKind } from '../../resources/initial-access-token/schema.ts';
import { oauth2AuthorizationKind, type OAuth2Authorization } from '../../resources/oauth2-authorization/schema.ts';
import { oauth2ClientAssertionKind } from '../../resources/oauth2-client-assertion/schema.ts';
import { sessionKind } from '../../resources/session/schema.ts';
import { authorizationExpiry } from './authorizations.ts';

/**
 * When each object of the authorization server has served its purpose (`core/cluster/expiry.ts` plans their
 * removal). An object outlives its last token by a grace period longer than the verification
 * leeway, so a replay of an expired token is still recognised while any check could accept it. Consents do
 * not expire.
 */
export const COLLECTION_GRACE_MS = 5 * 60_000;

/** `at` plus the grace period: when an object whose last token ends at `at` may go. */
const graced = (at: Date | undefined) => (at ? new Date(at.getTime() + COLLECTION_GRACE_MS) : undefined);

const specExpiry = (object: KubeObject): Date | undefined => {
  const at = (object.spec as { expiresAt?: string } | undefined)?.expiresAt;
  return graced(at ? new Date(at) : undefined);
};

export const COLLECTED_KINDS: readonly CollectedKind[] = [
  { ref: oauth2AuthorizationKind, expiry: (o) => graced(authorizationExpiry(o as unknown as OAuth2Authorization)) },
  { ref: sessionKind, expiry: specExpiry },
  { ref: oauth2ClientAssertionKind, expiry: specExpiry },
  { ref: initialAccessTokenKind, expiry: specExpiry },
];
