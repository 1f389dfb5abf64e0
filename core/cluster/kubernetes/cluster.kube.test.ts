import { describe, expect, it, inject } from 'vitest';
import { gadgetKind, widgetKind } from '../../../test/contract/cluster.contract.ts';
import { scratchNamespace } from '../../../test/support/kube-namespace.ts';
import type { KindRef, KubeObject } from '../objects.ts';
import { STRATUS_FIELD_MANAGER } from '../port.ts';
import { openKubernetesCluster } from './index.ts';

const configMapKind: KindRef = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  statusSubresource: false,
};

interface ManagedField {
  manager: string;
  operation: string;
}

describe('Kubernetes adapter, beyond the port contract', () => {
  const cluster = openKubernetesCluster({ kubeconfig: inject('kubeconfig') });
  const namespace = scratchNamespace(cluster, 'adapter');

  it('addresses core-group kinds under /api and gives list items their apiVersion and kind', async () => {
    await cluster.create(configMapKind, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace },
      data: { a: '1' },
    });
    const { items } = await cluster.list(configMapKind, { namespace });
    const settings = items.find((i) => i.metadata.name === 'settings');
    expect(settings).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });
  });

  it('applies server-side as the stratus-operator field manager, unless told another', async () => {
    const widget = (size: number) =>
      ({
        apiVersion: widgetKind.apiVersion,
        kind: widgetKind.kind,
        metadata: { name: 'applied', namespace },
        spec: { size },
      }) as KubeObject;
    await cluster.apply(widgetKind, widget(1));
    const applied = await cluster.apply(gadgetKind, { ...widget(2), kind: gadgetKind.kind }, { fieldManager: 'tests' });
    const managers = (kind: KindRef) =>
      cluster
        .get(kind, 'applied', namespace)
        .then((o) => (o?.metadata as { managedFields?: ManagedField[] }).managedFields?.map((f) => f.manager));
    expect(await managers(widgetKind)).toEqual([STRATUS_FIELD_MANAGER]);
    expect(await managers(gadgetKind)).toEqual(['tests']);
    expect(applied.spec).toEqual({ size: 2 });
  });
});
