import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import type { KindRef, KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import { eventually } from './eventually.ts';

const serviceAccountKind: KindRef = {
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
  statusSubresource: false,
};
const secretKind: KindRef = { ...serviceAccountKind, kind: 'Secret', plural: 'secrets' };

type ServiceAccount = KubeObject & { secrets?: { name: string }[] };
type Secret = KubeObject & { data?: { token?: string } };

/**
 * A kubeconfig file that authenticates as a ServiceAccount, so that what its holder may do is exactly what RBAC
 * grants that account. Kubernetes 1.20's token controller keeps the account's token in a Secret; this waits for it.
 */
export async function kubeconfigAs(
  admin: Cluster,
  adminKubeconfig: string,
  account: { name: string; namespace: string },
): Promise<string> {
  const token = await eventually(
    async () => {
      const sa = await admin.get<ServiceAccount>(serviceAccountKind, account.name, account.namespace);
      const secretName = sa?.secrets?.[0]?.name;
      if (!secretName) return undefined;
      const secret = await admin.get<Secret>(secretKind, secretName, account.namespace);
      return secret?.data?.token ? Buffer.from(secret.data.token, 'base64').toString() : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  const config = parse(await readFile(adminKubeconfig, 'utf8')) as { users: { user: Record<string, string> }[] };
  config.users[0]!.user = { token };
  const path = join(await mkdtemp(join(tmpdir(), 'stratus-sa-')), 'kubeconfig');
  await writeFile(path, stringify(config));
  return path;
}

/** A Cluster acting as a ServiceAccount (see `kubeconfigAs`). */
export async function clusterAs(
  admin: Cluster,
  adminKubeconfig: string,
  account: { name: string; namespace: string },
): Promise<Cluster> {
  return openKubernetesCluster({ kubeconfig: await kubeconfigAs(admin, adminKubeconfig, account) });
}
