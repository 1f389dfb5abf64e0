import { describe, expect, inject, it } from 'vitest';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { ingestionKind, type Ingestion } from '../../core/resources/ingestion/schema.ts';
import { sampleIngestion } from '../../test/support/kube-operator.ts';
import { scratchNamespace } from '../../test/support/kube-namespace.ts';
import { reportsOf } from '../jobs/kubernetes/job-state.ts';
import { statusReporter } from './status-report.ts';

describe('the reports of a split attempt’s parts on the API server', () => {
  const cluster = openKubernetesCluster({ kubeconfig: inject('kubeconfig') });
  const namespace = scratchNamespace(cluster, 'parts');

  it('keep each other: parts writing at once combine into the attempt’s report, beside an earlier attempt’s', async () => {
    await cluster.create(ingestionKind, sampleIngestion('split', namespace, '2024-01-01', '2024-01-31'));
    const target = { kind: ingestionKind, name: 'split', namespace };
    const earlier = statusReporter(cluster, { ...target, job: 'split-a1' });
    earlier.report({ type: 'error', errorType: 'UpstreamUnavailable', message: 'upstream answered 503' });
    await earlier.flushed();

    const parts = [0, 1, 2, 3].map((index) =>
      statusReporter(cluster, { ...target, job: 'split-a2', part: { index, count: 4 } }),
    );
    for (const [index, part] of parts.entries()) {
      for (let done = 1; done <= 5; done++)
        part.report({ type: 'progress', done, total: 31, message: `part ${index}` });
      part.report({ type: 'result', value: index === 2 ? { version: 'v' } : null });
    }
    await Promise.all(parts.map((part) => part.flushed()));

    const run = await cluster.get<Ingestion>(ingestionKind, 'split', namespace);
    const reports = reportsOf((run!.status as { worker?: unknown }).worker);
    expect(reports.find((r) => r.job === 'split-a1')?.end).toMatchObject({
      type: 'error',
      errorType: 'UpstreamUnavailable',
    });
    expect(reports.find((r) => r.job === 'split-a2')).toMatchObject({
      progress: { done: 20, total: 31 },
      end: { type: 'result', value: { version: 'v' } },
    });
  });
});
