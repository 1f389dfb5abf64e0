/**
 * The operator behind a faulty connection: its watches are cut, its resumptions answered 410 Gone in
 * both forms, some of its requests and watch establishments answered 500, its first Job creation stored but
 * answered 500. It converges all the same: one Job for the run, the run successful, the Dataset Ready, and a
 * Dataset edited while its watch is cut is reconciled once the watch is back, by resuming or by relisting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobKind } from '../../core/cluster/builtin-kinds.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { datasetIdOf } from '../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../core/resources/ingestion/schema.ts';
import type { BatchJob } from '../../operator/jobs/kubernetes/job-manifest.ts';
import { runKubernetesOperator, type RunningKubernetesOperator } from '../../cmd/operator.ts';
import { eventually } from '../support/eventually.ts';
import type { ExpiryForm } from '../support/faulty-kube-proxy.ts';
import { operatorSettings, sampleIngestion, sampleNamespaceBehindProxy } from '../support/kube-operator.ts';
import { markSucceeded, podOfJob, runContainer } from '../support/played-kubelet.ts';

describe('the operator behind a faulty proxy', () => {
  const fixture = sampleNamespaceBehindProxy('faulty', {
    failEveryNthRequest: 7,
    failEveryNthWatch: 5,
    expireEveryNthResume: 3,
    cutWatchesEveryMs: 1_500,
  });
  const { kubeconfig, cluster, namespace } = fixture;
  let operator: RunningKubernetesOperator | undefined;
  let lost = false;

  beforeAll(async () => {
    // The first Job creation reaches the API server, which stores the Job, but its answer is a 500.
    fixture.proxy.failNext((method, url) => method === 'POST' && url.pathname.endsWith('/jobs'), 'after');
    operator = await runKubernetesOperator(operatorSettings(namespace, fixture.directory, 'faulty-operator'), {
      kubeconfig: fixture.proxy.kubeconfig,
    });
    void operator.lost.then(() => (lost = true));
  });
  afterAll(async () => {
    await operator?.stop();
  });

  const datasetReconciled = (id: string, generation: number) =>
    eventually(
      async () => {
        const dataset = await cluster.get<Dataset>(datasetKind, id, namespace);
        return dataset?.status?.observedGeneration === generation ? dataset : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );

  /** Edits the Dataset while every watch is cut and refused, then lets the watches back (`expire`: with a 410). */
  async function editDuringCut(id: string, datasetName: string, expire?: ExpiryForm): Promise<number> {
    fixture.proxy.holdWatches();
    const refused = fixture.proxy.counts.watchesRefused;
    const edited = await cluster.patch<Dataset>(
      datasetKind,
      id,
      { type: 'merge', body: { spec: { datasetName } } },
      namespace,
    );
    // The operator tried to watch again and was refused: the edit fell into the cut.
    await eventually(async () => (fixture.proxy.counts.watchesRefused > refused ? true : undefined));
    fixture.proxy.releaseWatches(expire);
    return Number(edited.metadata.generation);
  }

  it('turns an Ingestion into one Job, follows it to success and reconciles edits made while watches are cut', async () => {
    await eventually(async () => ((await fetch(`${operator!.url}/readyz`)).ok ? true : undefined), {
      timeoutMs: 20_000,
    });
    await cluster.create(ingestionKind, sampleIngestion('sample-run', namespace, '2024-01-01', '2024-01-03'));
    const pod = await podOfJob(cluster, namespace, 'sample-run-a1');
    // The worker reports straight to the API server: the connection under test is the operator's.
    expect(await runContainer(kubeconfig, pod.spec!)).toBe(0);
    await markSucceeded(cluster, pod);
    const done = await eventually(
      async () => {
        const run = await cluster.get<Ingestion>(ingestionKind, 'sample-run', namespace);
        return run?.status?.phase === 'successful' ? run : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(done.status?.attempt).toBe(1);
    const { items: jobs } = await cluster.list<BatchJob>(jobKind, { namespace });
    expect(jobs.map((job) => job.metadata.name)).toEqual(['sample-run-a1']);
    const id = datasetIdOf(done);
    const dataset = await eventually(
      async () => {
        const current = await cluster.get<Dataset>(datasetKind, id, namespace);
        return current?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
          ? current
          : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(dataset.status?.currentVersion).toBeTruthy();

    // Resumed from the last version seen, the watch delivers the edit it missed.
    await datasetReconciled(id, await editDuringCut(id, 'Sample, renamed while cut'));
    // Answered 410 on resumption (each form once), the informers relist, and the relist carries the edit.
    for (const form of ['http', 'event'] as const) {
      const expired = fixture.proxy.counts.expired[form];
      const generation = await editDuringCut(id, `Sample, renamed while cut (${form} 410)`, form);
      // The resumption comes after the informer's backoff from the refused watches, which a loaded machine
      // stretches; the edit may meanwhile be reconciled by a resync. Both must happen.
      await eventually(async () => (fixture.proxy.counts.expired[form] > expired ? true : undefined), {
        timeoutMs: 20_000,
      });
      await datasetReconciled(id, generation);
    }

    // Every kind of fault happened, and none cost the operator its leadership.
    const { counts } = fixture.proxy;
    console.info(`faults: ${JSON.stringify(counts)}`);
    expect(counts.failedAfter).toBe(1);
    expect(counts.failedBefore).toBeGreaterThan(0);
    expect(counts.cut.destroy).toBeGreaterThan(0);
    expect(counts.cut.end).toBeGreaterThan(0);
    expect(lost).toBe(false);
  });
});
