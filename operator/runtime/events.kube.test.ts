import { describe, expect, inject, it } from 'vitest';
import { eventKind } from '../../core/cluster/builtin-kinds.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { widgetKind } from '../../test/contract/cluster.contract.ts';
import { scratchNamespace } from '../../test/support/kube-namespace.ts';
import { recordEvent } from './events.ts';

describe('events.k8s.io/v1 Events on the API server', () => {
  const cluster = openKubernetesCluster({ kubeconfig: inject('kubeconfig') });
  const namespace = scratchNamespace(cluster, 'events');

  it('records a repeated event once, counting the repeats in its series', async () => {
    const regarding = await cluster.create<KubeObject>(widgetKind, {
      apiVersion: widgetKind.apiVersion,
      kind: widgetKind.kind,
      metadata: { name: 'noisy', namespace },
    });
    const event = { type: 'Warning', reason: 'Stalled', message: 'the source answers 503' } as const;
    for (let i = 0; i < 3; i++) {
      await recordEvent(cluster, regarding, event, new Date(Date.UTC(2026, 0, 1, 0, 0, i, 250)), 'operator-0');
    }
    const { items } = await cluster.list(eventKind, { namespace });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      reason: 'Stalled',
      type: 'Warning',
      note: 'the source answers 503',
      regarding: { kind: 'Widget', name: 'noisy', uid: regarding.metadata.uid },
      series: { count: 3 },
    });
  });
});
