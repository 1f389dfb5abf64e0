/**
 * Two operators on one Lease: only the leader's controllers act; stopping the leader hands over within
 * 20 s; a run whose Job the first leader started is adopted by the second, never started twice. And the edges of
 * leading: a leader stopped while it starts, and one that lost the Lease but still runs until its process exits.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventKind, jobKind, leaseKind, namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { datasetIdOf } from '../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../core/resources/ingestion/schema.ts';
import { API_VERSION, validateObject } from '../../core/resources/registry.ts';
import { scheduleKind, type Schedule } from '../../core/resources/schedule/schema.ts';
import type { BatchJob } from '../../operator/jobs/kubernetes/job-manifest.ts';
import { REPORTING_CONTROLLER } from '../../operator/runtime/events.ts';
import { runKubernetesOperator, type RunningKubernetesOperator } from '../../cmd/operator.ts';
import { eventually } from '../support/eventually.ts';
import {
  createSampleNamespace,
  operatorSettings,
  reconcileCount,
  sampleIngestion,
  sampleNamespaceBehindProxy,
} from '../support/kube-operator.ts';
import { markSucceeded, podOfJob, runContainer } from '../support/played-kubelet.ts';

type Lease = KubeObject<{ holderIdentity?: string }>;
type Event = KubeObject & { reportingController?: string; reportingInstance?: string; reason?: string };

/** Who holds the operator's Lease in `namespace`; undefined when no one does. */
async function leaseHolder(cluster: Cluster, namespace: string): Promise<string | undefined> {
  return (await cluster.get<Lease>(leaseKind, 'stratus-operator', namespace))?.spec?.holderIdentity || undefined;
}

describe('two operators on one Lease', () => {
  const kubeconfig = inject('kubeconfig');
  const cluster = openKubernetesCluster({ kubeconfig });
  const namespace = `handover-${Date.now().toString(36)}`;
  let storageRoot: string;
  let a: RunningKubernetesOperator | undefined;
  let b: RunningKubernetesOperator | undefined;

  const start = (identity: string) =>
    runKubernetesOperator(operatorSettings(namespace, storageRoot, identity), { kubeconfig });
  const holder = () => leaseHolder(cluster, namespace);
  // The operator's Events, not those of Kubernetes' own controllers (the Job controller's pod creation).
  const operatorEvents = async () =>
    (await cluster.list<Event>(eventKind, { namespace })).items.filter(
      (event) => event.reportingController === REPORTING_CONTROLLER,
    );
  const jobNames = async () => (await cluster.list<BatchJob>(jobKind, { namespace })).items.map((j) => j.metadata.name);

  beforeAll(async () => {
    storageRoot = await mkdtemp(join(tmpdir(), 'stratus-kube-store-'));
    await createSampleNamespace(cluster, namespace);
    // A campaigns alone first, so that which of the two leads is known.
    a = await start('operator-a');
    await eventually(async () => ((await holder()) === 'operator-a' ? true : undefined), { timeoutMs: 15_000 });
    b = await start('operator-b');
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await cluster.delete(namespaceKind, namespace);
    await rm(storageRoot, { recursive: true, force: true });
  });

  it('lets only the leader reconcile, hands over within 20 s of its stop, and adopts the running Job', async () => {
    // Both are ready: the leader once its controllers listed, the standby at once (waiting is its work).
    await eventually(async () => ((await fetch(`${a!.url}/readyz`)).ok ? true : undefined));
    expect((await fetch(`${b!.url}/readyz`)).status).toBe(200);

    await cluster.create(ingestionKind, sampleIngestion('sample-run', namespace, '2024-01-01', '2024-01-03'));
    const job = await eventually(() => cluster.get<BatchJob>(jobKind, 'sample-run-a1', namespace));
    await eventually(async () => {
      const run = await cluster.get<Ingestion>(ingestionKind, 'sample-run', namespace);
      return run?.status?.jobName === 'sample-run-a1' ? run : undefined;
    });
    // Only A acted: its controllers reconciled, B's never started.
    expect(await holder()).toBe('operator-a');
    expect(await reconcileCount(a!.url)).toBeGreaterThan(0);
    expect(await reconcileCount(b!.url)).toBe(0);

    // The worker runs (the test plays the kubelet) while A stops and B takes over.
    const pod = await podOfJob(cluster, namespace, 'sample-run-a1');
    const worker = runContainer(kubeconfig, pod.spec!);
    const stoppedAt = Date.now();
    await a!.stop();
    a = undefined;
    await eventually(async () => ((await holder()) === 'operator-b' ? true : undefined), {
      timeoutMs: 25_000,
      intervalMs: 50,
    });
    const acquiredMs = Date.now() - stoppedAt;
    await eventually(async () => ((await reconcileCount(b!.url)) > 0 ? true : undefined), {
      timeoutMs: 25_000,
      intervalMs: 50,
    });
    const reconcilingMs = Date.now() - stoppedAt;
    console.info(`hand-over: Lease taken ${acquiredMs} ms, first reconcile ${reconcilingMs} ms after the stop`);
    expect(reconcilingMs).toBeLessThanOrEqual(20_000);

    expect(await worker).toBe(0);
    await markSucceeded(cluster, pod);
    const done = await eventually(
      async () => {
        const current = await cluster.get<Ingestion>(ingestionKind, 'sample-run', namespace);
        return current?.status?.phase === 'successful' ? current : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    await eventually(async () => {
      const current = await cluster.get<Dataset>(datasetKind, datasetIdOf(done), namespace);
      return current?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
    });

    // One attempt, one Job: the one A created (same uid), adopted by B, which recorded the run's end.
    expect(done.status?.attempt).toBe(1);
    expect(await jobNames()).toEqual(['sample-run-a1']);
    const adopted = await cluster.get<BatchJob>(jobKind, 'sample-run-a1', namespace);
    expect(adopted?.metadata.uid).toBe(job.metadata.uid);
    // The run's end was recorded by B, and each Event names the pod that recorded it.
    const events = await operatorEvents();
    expect(events.find((event) => event.reason === 'Succeeded')?.reportingInstance).toBe('operator-b');
    for (const event of events) expect(['operator-a', 'operator-b']).toContain(event.reportingInstance);
  });
});

describe('a leader stopped while it lists the worker Jobs', () => {
  // No faults: the proxy only holds one request, so that the stop falls into the window it opens.
  const fixture = sampleNamespaceBehindProxy('stopped');
  const { cluster, namespace } = fixture;

  it('releases the Lease and starts no controllers, though the list completes after the stop', async () => {
    await cluster.create(ingestionKind, sampleIngestion('sample-run', namespace, '2024-01-01', '2024-01-03'));
    const list = fixture.proxy.holdNext(
      (method, url) => method === 'GET' && url.pathname.endsWith('/jobs') && !url.searchParams.has('watch'),
    );
    const operator = await runKubernetesOperator(operatorSettings(namespace, fixture.directory, 'operator-stopped'), {
      kubeconfig: fixture.proxy.kubeconfig,
    });
    // It leads, and lists the worker Jobs before it starts its controllers.
    await list.arrived;
    const stopped = operator.stop();
    list.release();
    await stopped;
    expect(await leaseHolder(cluster, namespace)).toBeUndefined();
    // A leader's controllers take the run within a second (0.3 s after taking the Lease in the case above); nothing may take it now.
    await sleep(3_000);
    expect((await cluster.get<Ingestion>(ingestionKind, 'sample-run', namespace))?.status).toBeUndefined();
    expect(await cluster.list<BatchJob>(jobKind, { namespace })).toMatchObject({ items: [] });
  });
});

describe('a leader that lost its Lease, until its process exits', () => {
  const fixture = sampleNamespaceBehindProxy('lost');
  const { cluster, namespace } = fixture;
  let operator: RunningKubernetesOperator | undefined;

  afterAll(async () => {
    await operator?.stop();
  });

  const scheduleStatus = async () => (await cluster.get<Schedule>(scheduleKind, 'nightly', namespace))?.status;
  const scheduleReconciles = async () => reconcileCount(operator!.url, 'schedule');

  it('records no Schedule check: the Schedule controller asks the elector, which says it leads no more', async () => {
    const schedule = validateObject({
      apiVersion: API_VERSION,
      kind: 'Schedule',
      metadata: { name: 'nightly', namespace },
      spec: { datasetId: 'sample', cron: '30 2 * * *' },
    });
    if (!schedule.ok) throw new Error(JSON.stringify(schedule.issues));
    await cluster.create(scheduleKind, schedule.object);
    // Short lease timings: the loss comes within seconds of the cut.
    operator = await runKubernetesOperator(operatorSettings(namespace, fixture.directory, 'operator-lost'), {
      kubeconfig: fixture.proxy.kubeconfig,
      leaseTimings: { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 250 },
    });
    // While it leads, its Schedule controller records the next check (a controller that never led would not).
    await eventually(async () => ((await scheduleStatus())?.observedGeneration === 1 ? true : undefined));

    // Its Lease requests fail from now on (its other requests go through): it gives up leadership.
    fixture.proxy.failWhile((_method, url) => url.pathname.includes('/leases'));
    await operator.lost;
    const before = await scheduleReconciles();
    await cluster.patch(scheduleKind, 'nightly', { type: 'merge', body: { spec: { cron: '45 3 * * *' } } }, namespace);
    // The controllers still run until the process exits: the edit is reconciled, and the check not recorded.
    await eventually(async () => ((await scheduleReconciles()) > before ? true : undefined));
    expect((await scheduleStatus())?.observedGeneration).toBe(1);
  });
});
