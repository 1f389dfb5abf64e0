import { isApiError } from '../../cluster/errors.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { secretKind, secretValue, type Secret } from '../../resources/secret.ts';

export interface InstallationSecret {
  /** The Secret's name. */
  name: string;
  /** The key of the value in the Secret. */
  key: string;
  /** The `climate.stratus.dev/secret` label: what the value is for. */
  purpose: string;
  /** Makes the value when the installation has none yet. */
  make(): Promise<string>;
}

/**
 * A value made once per installation and kept in a Secret, created if absent, so that every API server replica
 * (and every restart) uses the same one (DESIGN.md §5). Two replicas starting together both try to create it; the
 * create that loses (409 AlreadyExists) reads the winner's.
 */
export async function installationSecret(cluster: Cluster, namespace: string, wanted: InstallationSecret) {
  const valueOf = (secret: Secret & KubeObject): string => {
    const value = secretValue(secret, wanted.key);
    if (!value) throw new Error(`Secret ${secret.metadata.name} has no ${wanted.key}`);
    return value;
  };
  const existing = await cluster.get<Secret & KubeObject>(secretKind, wanted.name, namespace);
  if (existing) return valueOf(existing);
  const value = await wanted.make();
  const secret: Secret & KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: wanted.name,
      namespace,
      labels: { 'app.kubernetes.io/part-of': 'stratus', 'climate.stratus.dev/secret': wanted.purpose },
    },
    type: 'Opaque',
    data: { [wanted.key]: Buffer.from(value).toString('base64') },
  };
  try {
    await cluster.create(secretKind, secret);
    return value;
  } catch (err) {
    if (!isApiError(err, 'AlreadyExists')) throw err;
    const winner = await cluster.get<Secret & KubeObject>(secretKind, wanted.name, namespace);
    if (!winner) throw err;
    return valueOf(winner);
  }
}
