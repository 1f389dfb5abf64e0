/**
 * The chart's RBAC on the test API server: the objects are applied for real, and the operator's and the API
 * server's ServiceAccounts act through their own tokens, so what passes is what the Roles grant.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { jobKind, leaseKind, namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { isApiError } from '../../core/cluster/errors.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { loadManifests } from '../../core/cluster/manifests.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { processingJobKind } from '../../core/resources/processing-job/schema.ts';
import { ingestionKind } from '../../core/resources/ingestion/schema.ts';
import { API_VERSION, validateObject } from '../../core/resources/registry.ts';
import { LeaderElector } from '../../operator/runtime/leader-election.ts';
import { eventually } from '../support/eventually.ts';
import { runTool } from '../../scripts/kube-cli.ts';
import { rejection } from '../support/rejection.ts';
import { clusterAs } from '../support/kube-service-account.ts';
import { renderChart } from '../support/stratus-chart.ts';

const kubeconfig = inject('kubeconfig');
const admin = openKubernetesCluster({ kubeconfig });
const release = `rbac-${randomUUID().slice(0, 6)}`;
const releaseNamespace = `${release}-system`;
const workNamespace = `${release}-work`;
const manifestsDir = join(import.meta.dirname, '../../manifests/data-sources');
const workloadKinds = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

/** The built-in sample DataSource, in the namespace the tests work in. */
async function dataSource(name: string): Promise<KubeObject> {
  const files = await loadManifests(manifestsDir, (object) => ({ ok: true, object: object as KubeObject }));
  const sample = files.flatMap((f) => f.documents).find((d) => d.metadata.name === 'sample')!;
  return { ...sample, metadata: { name, namespace: workNamespace } };
}

describe('chart RBAC, exercised with the ServiceAccounts tokens', () => {
  let operator: Cluster;
  let apiServer: Cluster;
  let worker: Cluster;

  beforeAll(async () => {
    for (const name of [releaseNamespace, workNamespace]) {
      await admin.apply(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    const objects = (await renderChart({ release, namespace: releaseNamespace, kubeVersion: '1.20.2' })).filter(
      (o) => workloadKinds.has(o.kind),
    );
    const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
    const applied = await runTool('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-f', '-'], list);
    expect(applied.stderr).toBe('');
    operator = await clusterAs(admin, kubeconfig, { name: `${release}-stratus-operator`, namespace: releaseNamespace });
    apiServer = await clusterAs(admin, kubeconfig, {
      name: `${release}-stratus-api-server`,
      namespace: releaseNamespace,
    });
    worker = await clusterAs(admin, kubeconfig, { name: `${release}-stratus-worker`, namespace: releaseNamespace });
  });

  afterAll(async () => {
    const selector = `app.kubernetes.io/instance=${release}`;
    await runTool('kubectl', ['--kubeconfig', kubeconfig, 'delete', 'clusterrole,clusterrolebinding', '-l', selector]);
    for (const name of [releaseNamespace, workNamespace]) await admin.delete(namespaceKind, name);
  });

  it('lets the API server create resources but not write their status', async () => {
    await apiServer.create(dataSourceKind, await dataSource('from-api'));
    const refused = await rejection(
      apiServer.patchStatus(dataSourceKind, 'from-api', { type: 'merge', body: { status: { x: 1 } } }, workNamespace),
    );
    expect(isApiError(refused, 'Forbidden') && refused.code).toBe(403);
  });

  it('lets the operator read resources and write their status', async () => {
    await admin.create(dataSourceKind, await dataSource('for-operator'));
    const { items } = await operator.list(dataSourceKind, { namespace: workNamespace });
    expect(items.map((i) => i.metadata.name)).toContain('for-operator');
    const patched = await operator.patchStatus<KubeObject<unknown, { observedGeneration: number }>>(
      dataSourceKind,
      'for-operator',
      { type: 'merge', body: { status: { observedGeneration: 1 } } },
      workNamespace,
    );
    expect(patched.status?.observedGeneration).toBe(1);
  });

  it('lets the operator, and only the operator, hold a Lease in the release namespace', async () => {
    const elector = (cluster: Cluster, identity: string, namespace: string) =>
      new LeaderElector({
        cluster,
        logger: pino({ level: 'silent' }),
        name: 'stratus-operator',
        namespace,
        identity,
        onStartedLeading: () => undefined,
        onStoppedLeading: () => undefined,
      });
    const leader = elector(operator, 'operator-0', releaseNamespace);
    leader.start();
    await eventually(async () => (leader.isLeader ? true : undefined));
    await leader.stop();
    const lease = (namespace: string): KubeObject => ({
      apiVersion: leaseKind.apiVersion,
      kind: leaseKind.kind,
      metadata: { name: 'not-yours', namespace },
    });
    for (const [cluster, namespace] of [
      [apiServer, releaseNamespace],
      [operator, workNamespace],
    ] as const) {
      const refused = await rejection(cluster.create(leaseKind, lease(namespace)));
      expect(isApiError(refused, 'Forbidden')).toBe(true);
    }
  });

  it('lets the operator run Jobs in the release namespace only', async () => {
    const job = (namespace: string): KubeObject => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'attempt', namespace },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'worker', image: 'stratus:test' }] } },
      },
    });
    await operator.create(jobKind, job(releaseNamespace));
    expect((await operator.list(jobKind, { namespace: releaseNamespace })).items).toHaveLength(1);
    await operator.delete(jobKind, 'attempt', releaseNamespace);
    const refused = await rejection(operator.create(jobKind, job(workNamespace)));
    expect(isApiError(refused, 'Forbidden')).toBe(true);
  });

  it('lets the worker patch the status of Ingestions and ProcessingJobs, and nothing else', async () => {
    const validated = validateObject({
      apiVersion: API_VERSION,
      kind: 'Ingestion',
      metadata: { name: 'run', namespace: workNamespace },
      spec: { source: 'sample' },
    });
    if (!validated.ok) throw new Error(JSON.stringify(validated.issues));
    await admin.create(ingestionKind, validated.object);
    const report = { type: 'merge' as const, body: { status: { worker: { job: 'run-a1', at: '2024-01-01T00:00:00Z' } } } };
    const patched = await worker.patchStatus<KubeObject<unknown, { worker?: { job: string } }>>(
      ingestionKind,
      'run',
      report,
      workNamespace,
    );
    expect(patched.status?.worker?.job).toBe('run-a1');
    await admin.create(processingJobKind, {
      apiVersion: API_VERSION,
      kind: 'ProcessingJob',
      metadata: { name: 'job', namespace: workNamespace },
      spec: { process: { process_graph: {} }, cancelRequested: false },
    });
    const jobReport = await worker.patchStatus<KubeObject<unknown, { worker?: { job: string } }>>(
      processingJobKind,
      'job',
      report,
      workNamespace,
    );
    expect(jobReport.status?.worker?.job).toBe('run-a1');
    await admin.create(dataSourceKind, await dataSource('not-for-worker'));
    // Thunks: a call starts when its turn comes, so no refusal goes unhandled meanwhile.
    for (const call of [
      () => worker.get(ingestionKind, 'run', workNamespace),
      () => worker.list(ingestionKind, { namespace: workNamespace }),
      () => worker.patch(ingestionKind, 'run', { type: 'merge', body: { spec: { maxAttempts: 5 } } }, workNamespace),
      () => worker.patchStatus(dataSourceKind, 'not-for-worker', report, workNamespace),
      () => worker.list(jobKind, { namespace: releaseNamespace }),
    ]) {
      const refused = await rejection(call());
      expect(isApiError(refused, 'Forbidden')).toBe(true);
    }
  });
});
