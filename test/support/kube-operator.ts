/**
 * What the Kubernetes-mode operator tests share: a fresh namespace holding the built-in `sample` DataSource,
 * the operator's settings for it, valid resources to create, and the operator's reconcile count from `/metrics`.
 */
import { defaultSplitOptions } from '../../core/runs/options.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { parse } from 'yaml';
import { namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import type { Ingestion } from '../../core/resources/ingestion/schema.ts';
import { API_VERSION, validateObject } from '../../core/resources/registry.ts';
import type { OperatorEnv } from '../../cmd/kubernetes-env.ts';
import { startFaultyKubeProxy, type FaultSchedule, type FaultyKubeProxy } from './faulty-kube-proxy.ts';

const REPOSITORY = resolve(import.meta.dirname, '../..');

/** Creates namespace `namespace` with the `sample` DataSource of manifests/data-sources/ in it. */
export async function createSampleNamespace(cluster: Cluster, namespace: string): Promise<void> {
  await cluster.create(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const sample = parse(await readFile(join(REPOSITORY, 'manifests/data-sources/sample.yaml'), 'utf8')) as KubeObject;
  await cluster.create(dataSourceKind, { ...sample, metadata: { name: 'sample', namespace } });
}

/**
 * The fixture of the tests that put an operator behind the faulty proxy, for the enclosing describe block: a fresh
 * namespace `<prefix>-...` holding the `sample` DataSource, a temporary directory (the store, and the proxy's
 * kubeconfig) and the proxy with `schedule`'s faults, made before the block's cases and removed after them. The
 * block's own afterAll hooks (stopping its operators) run before this one's: vitest runs them in reverse order.
 */
export function sampleNamespaceBehindProxy(prefix: string, schedule?: FaultSchedule) {
  const kubeconfig = inject('kubeconfig');
  const cluster = openKubernetesCluster({ kubeconfig });
  const namespace = `${prefix}-${Date.now().toString(36)}`;
  let directory: string | undefined;
  let proxy: FaultyKubeProxy | undefined;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), `stratus-${prefix}-`));
    await createSampleNamespace(cluster, namespace);
    proxy = await startFaultyKubeProxy(kubeconfig, directory, schedule);
  });
  afterAll(async () => {
    await proxy?.close();
    await cluster.delete(namespaceKind, namespace);
    if (directory) await rm(directory, { recursive: true, force: true });
  });
  const made = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the proxied namespace is made in beforeAll');
    return value;
  };
  return {
    /** The API server's admin kubeconfig, bypassing the proxy (for the test's own reads and the played kubelet). */
    kubeconfig,
    cluster,
    namespace,
    get directory(): string {
      return made(directory);
    },
    get proxy(): FaultyKubeProxy {
      return made(proxy);
    },
  };
}

/**
 * The settings of an operator watching `namespace`, on an ephemeral port, whose Lease and worker Jobs live there
 * too (so a Job is named after its attempt). The store and the Jobs' mount path are one directory, so a played
 * kubelet runs the worker's command as it stands.
 */
export function operatorSettings(namespace: string, storageRoot: string, identity: string): OperatorEnv {
  return {
    namespaces: [namespace],
    storePath: storageRoot,
    host: '127.0.0.1',
    port: 0,
    lease: { name: 'stratus-operator', namespace, identity },
    worker: { image: 'stratus:test', storeClaim: 'store', namespace, history: {}, split: defaultSplitOptions },
  };
}

/** An Ingestion of the sample source from `start` to `end`, with its schema's defaults (Cluster.create applies none). */
export function sampleIngestion(name: string, namespace: string, start: string, end: string): Ingestion {
  const validated = validateObject({
    apiVersion: API_VERSION,
    kind: 'Ingestion',
    metadata: { name, namespace },
    spec: { source: 'sample', start, end },
  });
  if (!validated.ok) throw new Error(`invalid Ingestion: ${JSON.stringify(validated.issues)}`);
  return validated.object as Ingestion;
}

/** How many reconciles the operator serving `/metrics` at `url` has made: all controllers', or `controller`'s. */
export async function reconcileCount(url: string, controller?: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const prefix = `controller_runtime_reconcile_total{${controller ? `controller="${controller}",` : ''}`;
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}
