import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import { leaderElectionScenarios } from '../../test/contract/leader-election.scenarios.ts';
import { eventually } from '../../test/support/eventually.ts';
import { leaderCandidates } from '../../test/support/leader-candidates.ts';
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

describe("the elector's Leadership (what the Schedule controller asks)", () => {
  it('answers from the Lease at every call: no before leading, yes while leading, no once leadership is lost', async () => {
    const timings = { leaseDurationMs: 1_000, renewDeadlineMs: 600, retryPeriodMs: 150 };
    const [candidate] = leaderCandidates(cluster, { name: 'leadership', namespace: 'default' }, ['a'], timings);
    const { elector } = candidate!;
    // Taken before the election, as cmd/operator.ts wires it: a copy of the answer of that moment would fail.
    const { leadership } = elector;
    expect(leadership.isLeader()).toBe(false);
    elector.start();
    try {
      await eventually(async () => (leadership.isLeader() ? true : undefined));
      candidate!.sever();
      await eventually(async () => candidate!.lostAt);
      expect(leadership.isLeader()).toBe(false);
    } finally {
      await elector.stop();
    }
  });
});
