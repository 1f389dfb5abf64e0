import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { clusterContract, gadgetKind, widgetKind } from './cluster.contract.ts';

clusterContract('Kubernetes API server', async () => {
  const cluster = openKubernetesCluster({ kubeconfig: inject('kubeconfig') });
  // A namespace per case keeps cases apart; the namespace controller deletes what a case leaves behind.
  const namespace = `contract-${randomUUID().slice(0, 8)}`;
  await cluster.create(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  return {
    cluster,
    kind: widgetKind,
    otherKind: gadgetKind,
    namespace,
    cleanup: async () => {
      await cluster.delete(namespaceKind, namespace);
    },
  };
});
