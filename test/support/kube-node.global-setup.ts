/**
 * Global setup of the `kube-node` test project: the control plane of the `kube` project plus one real node
 * (scripts/kube-node.sh: containerd, CNI, kube-scheduler, kubelet), started by `kube-test-cluster.sh start DIR
 * --node` and stopped after the run; the stop fails when it leaves a process, mount, interface or cgroup behind.
 * Test files read the admin kubeconfig with `inject('kubeconfig')` and the cluster's directory with
 * `inject('kubeClusterDir')`.
 */
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startTestCluster } from './kube-cluster.global-setup.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeClusterDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  return startTestCluster(['--node'], async (stateDir) => {
    console.log(`control plane and node Ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    project.provide('kubeconfig', join(stateDir, 'kubeconfig'));
    project.provide('kubeClusterDir', stateDir);
  });
}
