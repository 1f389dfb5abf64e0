/**
 * The operator behind a watch that went silent without closing: the faulty proxy keeps the watch's
 * connection open and passes nothing more, not even the server's end of the watch. The client's watch deadline
 * gives the connection up, the informer resumes from its last version, and an edit made after the silence is
 * reconciled within the deadline. Without the deadline the informer stays deaf (the controllers' resync comes
 * every 10 minutes), and the case fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataSourceKind, type DataSource } from '../../core/resources/data-source/schema.ts';
import { runKubernetesOperator, type RunningKubernetesOperator } from '../../cmd/operator.ts';
import { eventually } from '../support/eventually.ts';
import { operatorSettings, sampleNamespaceBehindProxy } from '../support/kube-operator.ts';

/** Shortened so that the case takes seconds: each watch asks for 2 or 3 s, and is given up 1 s after that. */
const watchTimings = { minTimeoutSeconds: 2, graceMs: 1_000 };
/** The informer's wait before it re-establishes a watch that failed (`core/cluster/informer.ts`). */
const REWATCH_MS = 1_000;

describe('the operator behind a silent watch', () => {
  const fixture = sampleNamespaceBehindProxy('silent');
  const { cluster, namespace } = fixture;
  let operator: RunningKubernetesOperator | undefined;

  beforeAll(async () => {
    operator = await runKubernetesOperator(operatorSettings(namespace, fixture.directory, 'silent-operator'), {
      kubeconfig: fixture.proxy.kubeconfig,
      watchTimings,
    });
  });
  afterAll(async () => {
    await operator?.stop();
  });

  /** The DataSource once the operator has reconciled `generation` of it. */
  const sourceReconciled = (generation: number, timeoutMs: number) =>
    eventually(
      async () => {
        const source = await cluster.get<DataSource>(dataSourceKind, 'sample', namespace);
        const ready = source?.status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.observedGeneration === generation ? source : undefined;
      },
      { timeoutMs, intervalMs: 100 },
    );

  it('reconciles an edit made after its watch went silent, once the watch deadline has passed', async () => {
    await eventually(
      async () => {
        const response = await fetch(`${operator!.url}/readyz`);
        await response.body?.cancel();
        return response.ok ? true : undefined;
      },
      { timeoutMs: 20_000 },
    );
    await sourceReconciled(1, 10_000);

    // The watches are renewed every few seconds: wait until the DataSources' watch is open to silence it.
    const sourceWatch = (url: URL) => url.pathname.endsWith(`/namespaces/${namespace}/datasources`);
    await eventually(async () => (fixture.proxy.silenceWatches(sourceWatch) > 0 ? true : undefined));
    const edited = await cluster.patch<DataSource>(
      dataSourceKind,
      'sample',
      { type: 'merge', body: { spec: { description: 'Edited while the watch of the operator is silent.' } } },
      namespace,
    );
    const started = performance.now();
    // The silent watch asked the server for at most twice the minimum; the client gives it up `graceMs` later, and
    // the informer resumes from its last version after its rewatch delay. Two seconds more for the reconcile.
    const bound = 2 * watchTimings.minTimeoutSeconds * 1_000 + watchTimings.graceMs + REWATCH_MS + 2_000;
    await sourceReconciled(Number(edited.metadata.generation), bound + 5_000);
    const elapsed = performance.now() - started;
    console.info(`an edit made after the watch went silent was reconciled after ${Math.round(elapsed)} ms`);
    expect(elapsed).toBeLessThan(bound);
    // The client, not the proxy, closed the silent connection: the deadline gave it up.
    expect(fixture.proxy.counts.silencedClosedByClient).toBeGreaterThan(0);
  });
});
