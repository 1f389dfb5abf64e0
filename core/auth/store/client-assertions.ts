import { isApiError } from '../../cluster/errors.ts';
import type { Cluster } from '../../cluster/port.ts';
import { API_VERSION } from '../../resources/kind.ts';
import {
  oauth2ClientAssertionKind,
  type OAuth2ClientAssertion,
} from '../../resources/oauth2-client-assertion/schema.ts';
import { clientAssertionName } from './names.ts';

/**
 * Marks a client assertion's jti as used. Returns false when it already was: the create of its deterministic name
 * answers 409 AlreadyExists to every use after the first, on any replica (RFC 7523 §3, single use).
 */
export async function useClientAssertion(
  cluster: Cluster,
  namespace: string,
  use: { clientId: string; jti: string; expiresAt: Date },
): Promise<boolean> {
  const record: OAuth2ClientAssertion = {
    apiVersion: API_VERSION,
    kind: 'OAuth2ClientAssertion',
    metadata: { name: clientAssertionName(use.clientId, use.jti), namespace },
    spec: { clientId: use.clientId, expiresAt: use.expiresAt.toISOString() },
  };
  try {
    await cluster.create(oauth2ClientAssertionKind, record);
    return true;
  } catch (err) {
    if (isApiError(err, 'AlreadyExists')) return false;
    throw err;
  }
}
