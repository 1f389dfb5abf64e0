/**
 * Global setup of the `kube` test project: builds (once, cached) and starts a real kube-apiserver,
 * kube-controller-manager and etcd through scripts/kube-test-cluster.sh, installs the CRDs, and stops it all
 * after the run. Test files read the admin kubeconfig with `inject('kubeconfig')`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import { gadgetKind, widgetKind } from '../contract/cluster.contract.ts';
import { eventually } from './eventually.ts';
import { freeFormCrd, installCrds, loadCrds, stratusCrdsDir } from './kube-crds.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
  }
}

const script = join(import.meta.dirname, '../../scripts/kube-test-cluster.sh');
const run = promisify(execFile);

async function clusterScript(...args: string[]): Promise<void> {
  // The first build takes minutes; its progress goes to the terminal.
  const child = run('bash', [script, ...args], { maxBuffer: 64 * 1024 * 1024 });
  child.child.stderr?.pipe(process.stderr);
  await child;
}

/**
 * The garbage collector of kube-controller-manager finds new CRDs by periodic discovery (every 30 s). Tests of
 * cascading deletion start once it collects a probe dependent of the contract kinds.
 */
async function awaitGarbageCollector(cluster: Cluster): Promise<void> {
  const namespace = 'gc-probe';
  await cluster.apply(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const owner = await cluster.create<KubeObject>(widgetKind, {
    apiVersion: widgetKind.apiVersion,
    kind: widgetKind.kind,
    metadata: { generateName: 'owner-', name: '', namespace },
  });
  const ownerReferences = [
    { apiVersion: widgetKind.apiVersion, kind: widgetKind.kind, name: owner.metadata.name, uid: owner.metadata.uid! },
  ];
  const dependents = [gadgetKind, widgetKind].map((kind) =>
    cluster.create<KubeObject>(kind, {
      apiVersion: kind.apiVersion,
      kind: kind.kind,
      metadata: { generateName: 'dependent-', name: '', namespace, ownerReferences },
    }),
  );
  const [gadget, widget] = await Promise.all(dependents);
  await cluster.delete(widgetKind, owner.metadata.name, namespace);
  await eventually(
    async () =>
      (await cluster.get(gadgetKind, gadget!.metadata.name, namespace)) === undefined &&
      (await cluster.get(widgetKind, widget!.metadata.name, namespace)) === undefined
        ? true
        : undefined,
    { timeoutMs: 120_000, intervalMs: 500 },
  );
  await cluster.delete(namespaceKind, namespace);
}

/**
 * Starts the test cluster (`kube-test-cluster.sh start DIR ...startOptions`) in a new temporary directory, then
 * runs `prepare` on it; returns the stop, which also removes the directory. A failed start or preparation stops
 * what started.
 */
export async function startTestCluster(
  startOptions: string[],
  prepare: (stateDir: string) => Promise<void>,
): Promise<() => Promise<void>> {
  const stateDir = await mkdtemp(join(tmpdir(), 'stratus-kube-'));
  const stop = async () => {
    await clusterScript('stop', stateDir);
    await rm(stateDir, { recursive: true, force: true });
  };
  try {
    await clusterScript('start', stateDir, ...startOptions);
    await prepare(stateDir);
  } catch (err) {
    await stop();
    throw err;
  }
  return stop;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  return startTestCluster([], async (stateDir) => {
    const kubeconfig = join(stateDir, 'kubeconfig');
    const cluster = openKubernetesCluster({ kubeconfig });
    await installCrds(cluster, [...(await loadCrds(stratusCrdsDir)), freeFormCrd(widgetKind), freeFormCrd(gadgetKind)]);
    await awaitGarbageCollector(cluster);
    project.provide('kubeconfig', kubeconfig);
  });
}
