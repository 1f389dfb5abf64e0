import { isApiError } from '../../cluster/errors.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { API_VERSION } from '../../resources/kind.ts';
import { secretKind, type Secret } from '../../resources/secret.ts';
import { userKind, type User } from '../../resources/user/schema.ts';
import { randomSecret } from '../digest.ts';
import { hashPassword } from '../password.ts';
import { UserDirectory } from './directory.ts';

/**
 * The first administrator of an installation (DESIGN.md §5): created when no user has the username, with the
 * `ALL` authority and its password's scrypt hash in a Secret. `make run` lets it draw a password and prints it
 * once; the chart passes one from a Secret. Replicas starting together may both try: the User's create decides.
 */
export const PASSWORD_HASH_KEY = 'password-hash';

export function passwordSecretName(userName: string): string {
  return `stratus-user-${userName}-password`;
}

export interface FirstAdmin {
  created: boolean;
  username: string;
  /** The password, when this call created the user. */
  password?: string;
}

export async function ensureFirstAdmin(
  cluster: Cluster,
  namespace: string,
  options: { username?: string; password?: string } = {},
): Promise<FirstAdmin> {
  const username = options.username ?? 'admin';
  if (await new UserDirectory(cluster, namespace).find('username', username)) return { created: false, username };
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(username) || username.length > 40)
    throw new Error(`the first admin's username "${username}" must be a DNS-1123 label of at most 40 characters`);
  const password = options.password ?? randomSecret(18);
  const secretName = passwordSecretName(username);
  // A Secret left by a start that stopped before creating the user holds a password nobody knows: replace it.
  await writePasswordHash(cluster, namespace, { name: secretName, key: PASSWORD_HASH_KEY }, password);
  const user: User & KubeObject = {
    apiVersion: API_VERSION,
    kind: 'User',
    metadata: { name: username, namespace },
    spec: {
      username,
      externalAuthOnly: false,
      passwordSecretRef: { name: secretName, key: PASSWORD_HASH_KEY },
      disabled: false,
      groups: [],
      authorities: ['ALL'],
    },
  };
  try {
    await cluster.create(userKind, user);
    return { created: true, username, password };
  } catch (err) {
    if (isApiError(err, 'AlreadyExists')) return { created: false, username };
    throw err;
  }
}

/**
 * Stores the scrypt hash of `password` under `ref` in its Secret: replaces the key's value in an existing Secret,
 * else creates the Secret (of two creating at once, the first wins).
 */
export async function writePasswordHash(
  cluster: Cluster,
  namespace: string,
  ref: { name: string; key: string },
  password: string,
): Promise<void> {
  const hash = Buffer.from(await hashPassword(password)).toString('base64');
  const existing = await cluster.get<Secret & KubeObject>(secretKind, ref.name, namespace);
  if (existing) {
    // A `stringData` value of the key would shadow the new hash (secretValue): it goes.
    const stringData = Object.entries(existing.stringData ?? {}).filter(([key]) => key !== ref.key);
    await cluster.update(secretKind, {
      ...existing,
      data: { ...existing.data, [ref.key]: hash },
      stringData: stringData.length > 0 ? Object.fromEntries(stringData) : undefined,
    });
    return;
  }
  await cluster
    .create<Secret & KubeObject>(secretKind, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: ref.name, namespace, labels: { 'app.kubernetes.io/part-of': 'stratus' } },
      type: 'Opaque',
      data: { [ref.key]: hash },
    })
    .catch((err: unknown) => {
      if (!isApiError(err, 'AlreadyExists')) throw err;
    });
}
