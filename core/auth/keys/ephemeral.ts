import { createPrivateKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { isApiError } from '../../cluster/errors.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { secretKind, secretValue, type Secret } from '../../resources/secret.ts';

/**
 * The ephemeral signing key of an installation without a keystore: an RSA-2048 key made once and kept in a Secret,
 * created if absent, so that every API server replica (and every restart) signs with the same key (DESIGN.md §5).
 * Two replicas starting together both try to create it; the create that loses (409 AlreadyExists) reads the winner's.
 */
export const SIGNING_KEY_SECRET = 'stratus-oauth2-signing-key';
const KEY = 'private-key.pem';
export const EPHEMERAL_KEY_BITS = 2048;

const generate = promisify(generateKeyPair);

function keyOf(secret: Secret & KubeObject): KeyObject {
  const pem = secretValue(secret, KEY);
  if (!pem) throw new Error(`Secret ${secret.metadata.name} has no ${KEY}`);
  return createPrivateKey(pem);
}

export async function ephemeralSigningKey(cluster: Cluster, namespace: string): Promise<KeyObject> {
  const existing = await cluster.get<Secret & KubeObject>(secretKind, SIGNING_KEY_SECRET, namespace);
  if (existing) return keyOf(existing);
  const { privateKey } = await generate('rsa', { modulusLength: EPHEMERAL_KEY_BITS });
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const secret: Secret & KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: SIGNING_KEY_SECRET,
      namespace,
      labels: { 'app.kubernetes.io/part-of': 'stratus', 'climate.stratus.dev/secret': 'oauth2-signing-key' },
    },
    type: 'Opaque',
    data: { [KEY]: Buffer.from(pem).toString('base64') },
  };
  try {
    await cluster.create(secretKind, secret);
    return privateKey;
  } catch (err) {
    if (!isApiError(err, 'AlreadyExists')) throw err;
    const winner = await cluster.get<Secret & KubeObject>(secretKind, SIGNING_KEY_SECRET, namespace);
    if (!winner) throw err;
    return keyOf(winner);
  }
}
