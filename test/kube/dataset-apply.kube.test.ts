/**
 * The kube tier at scale: 2,000 Datasets applied at once to the real kube-apiserver and etcd of this tier,
 * and the time until the operator (`runKubernetesOperator`, as `node cmd/stratus.ts operator` runs it) has decided
 * every one's readiness (`Ready` at the current generation). Starting that control plane takes the tier's global
 * setup, so the figure is taken by this test, which prints it and asserts only that every Dataset is decided
 * (`BENCH_KUBE_DATASETS` sets the number). The history of docs/performance.md records a run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runKubernetesOperator, type RunningKubernetesOperator } from '../../cmd/operator.ts';
import { namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { applyManifests } from '../../core/cluster/manifests.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { API_VERSION, findKind, validateObject } from '../../core/resources/registry.ts';
import { eventually } from '../support/eventually.ts';
import { createSampleNamespace, operatorSettings } from '../support/kube-operator.ts';

const COUNT = Number(process.env.BENCH_KUBE_DATASETS ?? 2_000);

const decided = (d: Dataset) =>
  d.status?.conditions?.some((c) => c.type === 'Ready' && c.observedGeneration === d.metadata.generation) ?? false;

describe(`${COUNT} Datasets applied at once on the kube tier`, () => {
  const cluster = openKubernetesCluster({ kubeconfig: inject('kubeconfig') });
  const namespace = `apply-${Date.now().toString(36)}`;
  let directory: string | undefined;
  let operator: RunningKubernetesOperator | undefined;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'stratus-kube-apply-'));
    await createSampleNamespace(cluster, namespace);
    operator = await runKubernetesOperator(operatorSettings(namespace, directory, 'apply-operator'), {
      kubeconfig: inject('kubeconfig'),
    });
    // Leading, and its controllers have listed what they watch.
    await eventually(
      async () => {
        const response = await fetch(`${operator!.url}/readyz`);
        await response.body?.cancel();
        return response.ok ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
  });
  afterAll(async () => {
    await operator?.stop();
    await cluster.delete(namespaceKind, namespace);
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('has every one decided', { timeout: 900_000 }, async () => {
    const documents = Array.from({ length: COUNT }, (_, i) => {
      const result = validateObject({
        apiVersion: API_VERSION,
        kind: 'Dataset',
        metadata: { name: `dataset-${String(i).padStart(5, '0')}`, namespace },
        spec: { source: 'sample', datasetName: `Sample ${i}` },
      });
      if (!result.ok) throw new Error(JSON.stringify(result.issues));
      return result.object;
    });
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    const loadBefore = load();
    const started = performance.now();
    await applyManifests(cluster, [{ file: 'datasets.yaml', documents }], (o) => findKind(o.apiVersion, o.kind)!);
    const applied = performance.now();
    const count = await eventually(
      async () => {
        const { items } = await cluster.list<Dataset>(datasetKind, { namespace });
        const done = items.filter(decided).length;
        return done === COUNT ? done : undefined;
      },
      { timeoutMs: 850_000, intervalMs: 1_000 },
    );
    const finished = performance.now();
    console.log(
      `kube tier: ${COUNT.toLocaleString('en-US')} Datasets applied in ${((applied - started) / 1000).toFixed(1)} s, ` +
        `readiness decided for all ${((finished - started) / 1000).toFixed(1)} s after the start of the apply ` +
        `(polled every second); load average ${loadBefore} before, ${load()} after`,
    );
    expect(count).toBe(COUNT);
  });
});
