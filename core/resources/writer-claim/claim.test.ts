import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../cluster/embedded/index.ts';
import { API_VERSION } from '../kind.ts';
import { ingestionKind, type Ingestion } from '../ingestion/schema.ts';
import { claimWriter, UNBORN_HOLDER_MS } from './claim.ts';

describe('the writer claim of a target', () => {
  let dir: string;
  let cluster: EmbeddedCluster;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-writer-'));
    cluster = await openEmbeddedCluster({ dataDir: dir });
  });
  afterEach(async () => {
    await cluster.close();
    await rm(dir, { recursive: true, force: true });
  });

  const createRun = (name: string, phase?: string) =>
    cluster.create<Ingestion>(ingestionKind, {
      apiVersion: API_VERSION,
      kind: ingestionKind.kind,
      metadata: { name, namespace: 'default' },
      spec: { source: 'sample', datasetId: 'd1', start: '2024-01-01', end: '2024-01-31' },
      ...(phase && { status: { phase } }),
    } as Ingestion);

  it('goes to exactly one of fifty concurrent claims, and again to its holder', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `run-${i}`);
    const claims = await Promise.all(names.map((name) => claimWriter(cluster, 'default', 'd1', name)));
    const winners = names.filter((_, i) => claims[i]!.claimed);
    expect(winners).toHaveLength(1);
    for (const claim of claims) if (!claim.claimed) expect(claim.holder).toBe(winners[0]);
    expect(await claimWriter(cluster, 'default', 'd1', winners[0]!)).toEqual({ claimed: true });
    // Another target is free.
    expect(await claimWriter(cluster, 'default', 'd2', 'run-x')).toEqual({ claimed: true });
  });

  it('passes on once its holder finished, and from a holder never created once the grace is over', async () => {
    await createRun('first');
    expect(await claimWriter(cluster, 'default', 'd1', 'first')).toEqual({ claimed: true });
    expect(await claimWriter(cluster, 'default', 'd1', 'second')).toEqual({ claimed: false, holder: 'first' });
    const run = (await cluster.get<Ingestion>(ingestionKind, 'first', 'default'))!;
    await cluster.updateStatus(ingestionKind, { ...run, status: { ...run.status, phase: 'successful' } } as Ingestion);
    expect(await claimWriter(cluster, 'default', 'd1', 'second')).toEqual({ claimed: true });

    // 'second' was never created (its creator died after claiming): it holds for the grace period only.
    const start = Date.parse('2026-01-01T00:00:00Z');
    const at = (ms: number) => () => new Date(start + ms);
    expect(await claimWriter(cluster, 'default', 'd3', 'unborn', at(0))).toEqual({ claimed: true });
    expect(await claimWriter(cluster, 'default', 'd3', 'other', at(UNBORN_HOLDER_MS - 1))).toEqual({
      claimed: false,
      holder: 'unborn',
    });
    expect(await claimWriter(cluster, 'default', 'd3', 'other', at(UNBORN_HOLDER_MS + 1))).toEqual({ claimed: true });
  });
});
