import { describe, expect, it } from 'vitest';
import { openTestCluster } from '../../test/support/auth-app.ts';
import { ApiError } from '../cluster/errors.ts';
import type { KindRef, KubeObject } from '../cluster/objects.ts';
import type { Cluster } from '../cluster/port.ts';
import { workflowKind } from '../resources/workflow/schema.ts';
import type { UserProcess } from './graph/types.ts';
import { replaceWorkflow, storedWorkflows } from './workflows.ts';

const processOf = (value: number): UserProcess => ({
  id: 'constant',
  summary: `the number ${value}`,
  process_graph: { [`n${value}`]: { process_id: 'add', arguments: { x: value, y: 0 }, result: true } },
});

/** The cluster, with its first `conflicts` updates refused as a concurrent writer's swap would refuse them. */
function losingSwaps(cluster: Cluster, conflicts: number) {
  let updates = 0;
  return {
    get: cluster.get.bind(cluster),
    list: cluster.list.bind(cluster),
    create: cluster.create.bind(cluster),
    update: <T extends KubeObject>(kind: KindRef, object: T) => {
      updates++;
      if (updates <= conflicts) return Promise.reject(new ApiError('Conflict', 'the object has been modified'));
      return cluster.update(kind, object);
    },
    updates: () => updates,
  };
}

describe('replaceWorkflow', () => {
  it('reads again and retries a lost compare-and-swap, then stores the process whole', async () => {
    const cluster = await openTestCluster();
    await replaceWorkflow(cluster, 'default', processOf(1));
    const contended = losingSwaps(cluster, 3);
    await replaceWorkflow(contended, 'default', processOf(2));
    expect(contended.updates()).toBe(4);
    expect(await storedWorkflows(cluster, 'default').get('constant')).toEqual(processOf(2));
  });

  it('gives up with the Conflict after 100 lost swaps, leaving the stored process as it was', async () => {
    const cluster = await openTestCluster();
    await replaceWorkflow(cluster, 'default', processOf(1));
    const contended = losingSwaps(cluster, Infinity);
    await expect(replaceWorkflow(contended, 'default', processOf(2))).rejects.toMatchObject({ reason: 'Conflict' });
    expect(contended.updates()).toBe(100);
    expect(await storedWorkflows(cluster, 'default').get('constant')).toEqual(processOf(1));
    expect((await cluster.list(workflowKind, { namespace: 'default' })).items).toHaveLength(1);
  });
});
