/**
 * The Workflow CRD on the real kube-apiserver of this tier: openEO's parameter declarations are kept as written (a
 * numeric default, a list of schemas, members openEO does not name), and a parameter without the members openEO
 * requires is refused by the API server itself.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { API_VERSION } from '../../core/resources/registry.ts';
import { workflowKind, type Workflow } from '../../core/resources/workflow/schema.ts';

describe('the Workflow CRD on the kube tier', () => {
  const cluster = openKubernetesCluster({ kubeconfig: inject('kubeconfig') });
  const namespace = `workflow-${Date.now().toString(36)}`;
  const workflow = (name: string, parameters: unknown[]): Workflow =>
    ({
      apiVersion: API_VERSION,
      kind: 'Workflow',
      metadata: { name, namespace },
      spec: {
        id: name.replace(/-/g, '_'),
        parameters,
        returns: { schema: [{ type: 'number' }, { type: 'null' }], unit: 'mm' },
        processGraph: { add: { process_id: 'add', arguments: { x: { from_parameter: 'x' }, y: 1 }, result: true } },
      },
    }) as Workflow;

  beforeAll(async () => {
    await cluster.create(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  });
  afterAll(async () => {
    await cluster.delete(namespaceKind, namespace);
  });

  it('keeps a numeric default, a null default, a list of schemas and members openEO does not name', async () => {
    const parameters = [
      { name: 'x', description: 'A number.', schema: { type: 'number' }, optional: true, default: 2, unit: 'mm' },
      {
        name: 'y',
        description: 'Maybe.',
        schema: [{ type: 'number' }, { type: 'null' }],
        optional: true,
        default: null,
      },
    ];
    await cluster.create(workflowKind, workflow('kept', parameters));
    const stored = await cluster.get<Workflow>(workflowKind, 'kept', namespace);
    expect(stored!.spec.parameters).toEqual(parameters);
    expect(stored!.spec.returns).toEqual({ schema: [{ type: 'number' }, { type: 'null' }], unit: 'mm' });
  });

  it('refuses a parameter without its description and schema', async () => {
    await expect(cluster.create(workflowKind, workflow('refused', [{ name: 'x' }]))).rejects.toMatchObject({
      reason: 'Invalid',
    });
  });
});
