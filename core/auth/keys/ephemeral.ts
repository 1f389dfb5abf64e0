import { createPrivateKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { Cluster } from '../../cluster/port.ts';
import { installationSecret } from './installation-secret.ts';

/**
 * The ephemeral signing key of an installation without a keystore: an RSA-2048 key made once and kept in a Secret,
 * so that every API server replica (and every restart) signs with the same key (DESIGN.md §5).
 */
export const SIGNING_KEY_SECRET = 'stratus-oauth2-signing-key';
export const EPHEMERAL_KEY_BITS = 2048;

const generate = promisify(generateKeyPair);

export async function ephemeralSigningKey(cluster: Cluster, namespace: string): Promise<KeyObject> {
  const pem = await installationSecret(cluster, namespace, {
    name: SIGNING_KEY_SECRET,
    key: 'private-key.pem',
    purpose: 'oauth2-signing-key',
    make: async () => {
      const { privateKey } = await generate('rsa', { modulusLength: EPHEMERAL_KEY_BITS });
      return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    },
  });
  return createPrivateKey(pem);
}
