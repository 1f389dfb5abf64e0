import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import type { Cluster } from '../../core/cluster/port.ts';

/**
 * A namespace of its own for the enclosing suite, created before its tests and deleted after them (the namespace
 * controller then deletes whatever they left in it). Returns its name.
 */
export function scratchNamespace(cluster: Cluster, prefix: string): string {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    await cluster.create(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  });
  afterAll(async () => {
    await cluster.delete(namespaceKind, name);
  });
  return name;
}
