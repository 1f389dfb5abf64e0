/**
 * Kubernetes mode end to end on the test control plane: the operator (in process, as `stratus operator` runs
 * it) turns an Ingestion into a worker Job; the test plays the kubelet for the Job controller's pod; the worker
 * reports into the run's status; the run and its Dataset reach Ready; deleting the run collects the Job.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { jobKind, namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import type { KindRef, KubeObject } from '../../core/cluster/objects.ts';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { datasetIdOf } from '../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../core/resources/registry.ts';
import type { BatchJob } from '../../operator/jobs/kubernetes/job-manifest.ts';
import { runKubernetesApiServer } from '../../cmd/api-server.ts';
import { runKubernetesOperator, type RunningKubernetesOperator } from '../../cmd/operator.ts';
import { eventually } from '../support/eventually.ts';

const podKind: KindRef = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, statusSubresource: true };
const REPOSITORY = resolve(import.meta.dirname, '../..');

interface PodTemplate {
  containers: { command: string[]; env?: { name: string; value?: string }[] }[];
}
type Pod = KubeObject<PodTemplate, { phase?: string }>;

/** Runs the worker container's command here, as a kubelet would in the pod; resolves with its exit code. */
function runContainer(kubeconfig: string, template: PodTemplate): Promise<number> {
  const [container] = template.containers;
  const [program, ...args] = container!.command;
  expect(program).toBe('node');
  const env = Object.fromEntries((container!.env ?? []).map(({ name, value }) => [name, value ?? '']));
  const child = spawn(process.execPath, args, {
    cwd: REPOSITORY,
    env: { ...process.env, ...env, KUBECONFIG: kubeconfig },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

describe('an Ingestion on Kubernetes runs as a worker Job', () => {
  const kubeconfig = inject('kubeconfig');
  const cluster = openKubernetesCluster({ kubeconfig });
  const namespace = `jobs-${Date.now().toString(36)}`;
  let storageRoot: string;
  let operator: RunningKubernetesOperator;

  beforeAll(async () => {
    storageRoot = await mkdtemp(join(tmpdir(), 'stratus-kube-store-'));
    await cluster.apply(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const sample = parse(await readFile(join(REPOSITORY, 'manifests/data-sources/sample.yaml'), 'utf8')) as KubeObject;
    await cluster.create(dataSourceKind, { ...sample, metadata: { name: 'sample', namespace } });
    // The operator's store and the Job's mount path are one path (the input names files under it), so the
    // kubelet played here runs the command as it stands.
    operator = await runKubernetesOperator(
      {
        namespaces: [namespace],
        storePath: storageRoot,
        host: '127.0.0.1',
        port: 0,
        lease: { name: 'stratus-operator', namespace, identity: 'test-operator' },
        worker: { image: 'stratus:test', storeClaim: 'store', namespace, history: {} },
      },
      { kubeconfig },
    );
  });
  afterAll(async () => {
    await operator?.stop();
    await cluster.delete(namespaceKind, namespace);
    await rm(storageRoot, { recursive: true, force: true });
  });

  it('reconciles the run into a Job, which the run then follows to Ready and takes with it when deleted', async () => {
    await eventually(async () => ((await fetch(`${operator.url}/readyz`)).ok ? true : undefined));
    await cluster.create<Ingestion>(ingestionKind, {
      apiVersion: API_VERSION,
      kind: 'Ingestion',
      metadata: { name: 'sample-run', namespace },
      spec: { source: 'sample', start: '2024-01-01', end: '2024-01-03' },
    } as Ingestion);

    const job = await eventually(() => cluster.get<BatchJob>(jobKind, 'sample-run-a1', namespace));
    const run = await cluster.get<Ingestion>(ingestionKind, 'sample-run', namespace);
    expect(job.metadata.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'Ingestion',
        uid: run!.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      }),
    ]);
    expect(job.spec).toMatchObject({ backoffLimit: 0 });

    // The real Job controller made the pod; with no kubelet it stays Pending until the test runs it.
    const pod = await eventually(async () => {
      const { items } = await cluster.list<Pod>(podKind, { namespace, labelSelector: 'job-name=sample-run-a1' });
      return items[0];
    });
    expect(await runContainer(kubeconfig, pod.spec!)).toBe(0);
    await cluster.updateStatus<Pod>(podKind, { ...pod, status: { phase: 'Succeeded' } });

    const done = await eventually(
      async () => {
        const current = await cluster.get<Ingestion>(ingestionKind, 'sample-run', namespace);
        return current?.status?.phase === 'successful' ? current : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(done.status?.progress).toMatchObject({ percent: 100 });
    const completed = await cluster.get<BatchJob>(jobKind, 'sample-run-a1', namespace);
    expect(completed?.status?.conditions).toEqual([expect.objectContaining({ type: 'Complete', status: 'True' })]);
    const dataset = await eventually(async () => {
      const current = await cluster.get<Dataset>(datasetKind, datasetIdOf(done), namespace);
      const ready = current?.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' ? current : undefined;
    });
    expect(dataset.status?.currentVersion).toBeTruthy();

    // `stratus api-server` answers from the same cluster, with no leader of its own.
    const api = await runKubernetesApiServer(
      { namespaces: [namespace], storePath: storageRoot, host: '127.0.0.1', port: 0 },
      { kubeconfig },
    );
    try {
      const listed = (await (await fetch(`${api.url}/datasets`)).json()) as { items: { dataset_id: string }[] };
      expect(listed.items.map((item) => item.dataset_id)).toContain(datasetIdOf(done));
    } finally {
      await api.stop();
    }

    await cluster.delete(ingestionKind, 'sample-run', namespace);
    await eventually(
      async () => ((await cluster.get(jobKind, 'sample-run-a1', namespace)) === undefined ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  });
});
