import { basename, join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { runTool } from '../../scripts/kube-cli.ts';
import { freeFormCrd, installCrds } from '../support/kube-crds.ts';
import { chartValueFiles, kustomizeBase, renderChart } from '../support/stratus-chart.ts';

const kubeconfig = inject('kubeconfig');
const cluster = openKubernetesCluster({ kubeconfig });
const manifestsDir = join(import.meta.dirname, '../../manifests');
const valueFiles = await chartValueFiles();

async function ensureNamespaces(names: string[]): Promise<void> {
  for (const name of new Set(names)) {
    await cluster.apply(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
}

/** `kubectl apply --dry-run=server`: the API server validates and admits every object but stores none. */
async function serverDryRun(args: string[], input?: string) {
  return runTool('kubectl', ['--kubeconfig', kubeconfig, 'apply', '--dry-run=server', ...args], input);
}

describe('server-side dry run on the test API server', () => {
  // The Prometheus Operator's ServiceMonitor kind, which monitoring-values.yaml renders, is not installed on the
  // test API server. A schema-less CRD of our own serves the kind, so the dry run checks the object's group,
  // version, kind and namespace; the rendered fields are checked in stratus.test.ts.
  beforeAll(async () => {
    const serviceMonitor = {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      plural: 'servicemonitors',
      namespaced: true,
      statusSubresource: false,
    };
    await installCrds(cluster, [freeFormCrd(serviceMonitor)]);
  });

  it.each(valueFiles.map((file) => [file ? basename(file) : 'default values', file]))(
    'admits every object helm template renders with %s',
    async (_name, valuesFile) => {
      const objects = await renderChart({ valuesFile, kubeVersion: '1.20.2', namespace: 'stratus-dry-run' });
      await ensureNamespaces(objects.flatMap((o) => (o.metadata.namespace ? [o.metadata.namespace] : [])));
      const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
      const result = await serverDryRun(['-f', '-'], list);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const admitted = result.stdout.trim().split('\n');
      expect(admitted).toHaveLength(objects.length);
      for (const line of admitted) expect(line).toMatch(/\(server dry run\)$/);
    },
  );

  it('admits the templated CRDs (crds.templated) over the installed ones', async () => {
    const crds = (await renderChart({ set: ['crds.templated=true'], kubeVersion: '1.20.2' })).filter(
      (o) => o.kind === 'CustomResourceDefinition',
    );
    expect(crds.length).toBeGreaterThan(0);
    // Server-side, as Helm's successor tools and GitOps agents apply; the installed CRDs have another manager.
    const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: crds });
    const result = await serverDryRun(['--server-side', '--force-conflicts', '-f', '-'], list);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(crds.length);
  });

  it('admits the Kustomize base, all but the policy/v1 PodDisruptionBudget that 1.20 predates', async () => {
    const objects = (await kustomizeBase()).filter(
      (o) => !(o.kind === 'PodDisruptionBudget' && o.apiVersion === 'policy/v1'),
    );
    // The namespace must exist for its objects to be admitted; applied server-side like the rest, so kubectl
    // does not warn about a missing last-applied annotation.
    await ensureNamespaces(['stratus']);
    const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
    const result = await serverDryRun(['--server-side', '-f', '-'], list);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(objects.length);
  });

  it.each(['examples', 'examples-reference', 'data-sources'])('admits every manifest in manifests/%s', async (dir) => {
    await ensureNamespaces(['default']);
    const result = await serverDryRun(['-f', join(manifestsDir, dir)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\(server dry run\)/);
  });
});

