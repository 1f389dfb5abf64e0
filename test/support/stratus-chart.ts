import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { runTool } from '../../scripts/kube-cli.ts';

export const chartDir = join(import.meta.dirname, '../../charts/stratus');

/** The default values (`undefined`) and every `ci/*-values.yaml` of the chart: the configurations tests render. */
export async function chartValueFiles(): Promise<(string | undefined)[]> {
  const ci = (await readdir(join(chartDir, 'ci'))).filter((f) => f.endsWith('-values.yaml')).sort();
  return [undefined, ...ci.map((f) => join(chartDir, 'ci', f))];
}

/** `helm template` of the chart; fails with helm's message when rendering fails. */
export async function renderChart(
  options: { release?: string; valuesFile?: string; set?: string[]; kubeVersion?: string; namespace?: string } = {},
): Promise<KubeObject[]> {
  const args = ['template', options.release ?? 'stratus', chartDir, '--namespace', options.namespace ?? 'stratus'];
  if (options.valuesFile) args.push('--values', options.valuesFile);
  for (const value of options.set ?? []) args.push('--set', value);
  if (options.kubeVersion) args.push('--kube-version', options.kubeVersion);
  const { code, stdout, stderr } = await runTool('helm', args);
  if (code !== 0) throw new Error(`helm template failed: ${stderr}`);
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

/** `kubectl kustomize manifests/base`: the objects the base installs. */
export async function kustomizeBase(): Promise<KubeObject[]> {
  const { code, stdout, stderr } = await runTool('kubectl', [
    'kustomize',
    join(import.meta.dirname, '../../manifests/base'),
  ]);
  if (code !== 0) throw new Error(`kubectl kustomize failed: ${stderr}`);
  return parseAllDocuments(stdout).map((doc) => doc.toJS() as KubeObject);
}

const rbacKinds = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

/**
 * Installs the ServiceAccounts and RBAC of a cluster-wide release of the chart on the test API server, as helm would
 * (server-side apply), and returns every object the chart renders for it (Kubernetes 1.20).
 */
export async function installChartRbac(kubeconfig: string, release: string, namespace: string): Promise<KubeObject[]> {
  const rendered = await renderChart({ release, namespace, kubeVersion: '1.20.2' });
  const { stderr } = await runTool(
    'kubectl',
    ['--kubeconfig', kubeconfig, 'apply', '--server-side', '--field-manager', 'helm', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rendered.filter((o) => rbacKinds.has(o.kind)) }),
  );
  if (stderr !== '') throw new Error(`kubectl apply of the chart's RBAC failed: ${stderr}`);
  return rendered;
}
