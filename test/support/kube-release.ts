import type { Cluster } from '../../core/cluster/port.ts';
import { namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { runTool } from '../../scripts/kube-cli.ts';
import { kubeconfigAs } from './kube-service-account.ts';
import { installChartRbac } from './stratus-chart.ts';

/**
 * The chart's RBAC installed as a release `<prefix>-<time>` would install it, in its namespace `<release>-system`,
 * with a namespace `<release>-work` for the resources: what the kube-tier tests of API server processes stand on.
 */
export interface KubeRelease {
  release: string;
  releaseNamespace: string;
  workNamespace: string;
  /** A kubeconfig of the release's API server service account. */
  apiServerKubeconfig: string;
  /** Deletes the release's cluster-wide roles and both namespaces. */
  remove(): Promise<void>;
}

export async function installRelease(admin: Cluster, adminKubeconfig: string, prefix: string): Promise<KubeRelease> {
  const release = `${prefix}-${Date.now().toString(36)}`;
  const releaseNamespace = `${release}-system`;
  const workNamespace = `${release}-work`;
  for (const name of [releaseNamespace, workNamespace])
    await admin.apply(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await installChartRbac(adminKubeconfig, release, releaseNamespace);
  const apiServerKubeconfig = await kubeconfigAs(admin, adminKubeconfig, {
    name: `${release}-stratus-api-server`,
    namespace: releaseNamespace,
  });
  return {
    release,
    releaseNamespace,
    workNamespace,
    apiServerKubeconfig,
    remove: async () => {
      const selector = `app.kubernetes.io/instance=${release}`;
      await runTool('kubectl', [
        '--kubeconfig',
        adminKubeconfig,
        'delete',
        'clusterrole,clusterrolebinding',
        '-l',
        selector,
      ]);
      for (const name of [releaseNamespace, workNamespace]) await admin.delete(namespaceKind, name);
    },
  };
}
