import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Cluster } from '../../cluster/port.ts';
import { installationSecret } from './installation-secret.ts';

/**
 * The installation's key for the MAC of refresh tokens (core/auth/tokens/refresh-token.ts): 256 random bits made
 * once and kept in a Secret, shared by every replica. Apart from the signing key, so that a keystore's key can be
 * rotated without ending every refresh token; deleting the Secret (and restarting) ends them all.
 */
export const TOKEN_KEY_SECRET = 'stratus-oauth2-token-key';

/**
 * The key as a KeyObject: an HMAC keyed by one costs about a fifth of one keyed by a Buffer, which Node makes into a
 * key anew on every call (26 against 5 µs here), and every refresh computes two.
 */
export async function tokenMacKey(cluster: Cluster, namespace: string): Promise<KeyObject> {
  const encoded = await installationSecret(cluster, namespace, {
    name: TOKEN_KEY_SECRET,
    key: 'hmac-sha256.key',
    purpose: 'oauth2-token-key',
    make: async () => randomBytes(32).toString('base64url'),
  });
  return createSecretKey(Buffer.from(encoded, 'base64url'));
}
