import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import { leaderElectionScenarios } from '../../test/contract/leader-election.scenarios.ts';
import { LeaderElector } from './leader-election.ts';

let dataDir: string;
let cluster: EmbeddedCluster;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stratus-lease-'));
  cluster = await openEmbeddedCluster({ dataDir });
});
afterAll(async () => {
  await cluster.close();
  await rm(dataDir, { recursive: true, force: true });
});

// Shortened timings keep the scenarios near a second each; a Lease counts its duration in whole seconds.
leaderElectionScenarios('embedded cluster', async () => ({
  cluster,
  namespace: 'default',
  timings: { leaseDurationMs: 1_000, renewDeadlineMs: 600, retryPeriodMs: 150 },
}));

describe('leader elector options', () => {
  it('refuses a renew deadline that is not shorter than the lease duration', () => {
    expect(
      () =>
        new LeaderElector({
          cluster,
          logger: pino({ level: 'silent' }),
          name: 'x',
          namespace: 'default',
          identity: 'a',
          leaseDurationMs: 1_000,
          renewDeadlineMs: 1_000,
          onStartedLeading: () => undefined,
          onStoppedLeading: () => undefined,
        }),
    ).toThrow(/renew deadline/);
  });
});
