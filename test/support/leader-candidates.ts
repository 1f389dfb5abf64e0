import pino from 'pino';
import type { Cluster } from '../../core/cluster/port.ts';
import { LeaderElector, type LeaseTimings } from '../../operator/runtime/leader-election.ts';
import { severableCluster } from './severable-cluster.ts';

export interface Candidate {
  identity: string;
  elector: LeaderElector;
  /** When it started and stopped leading (ms since epoch). */
  startedAt?: number;
  lostAt?: number;
  sever(): void;
}

/** Candidates for one Lease, each on its own severable connection, recording when they lead and lose. */
export function leaderCandidates(
  cluster: Cluster,
  lease: { name: string; namespace: string },
  identities: string[],
  timings: Partial<LeaseTimings> = {},
): Candidate[] {
  return identities.map((identity) => {
    const connection = severableCluster(cluster);
    const candidate: Candidate = {
      identity,
      sever: connection.sever,
      elector: new LeaderElector({
        ...lease,
        ...timings,
        cluster: connection.cluster,
        logger: pino({ level: 'silent' }),
        identity,
        onStartedLeading: () => (candidate.startedAt = Date.now()),
        onStoppedLeading: () => (candidate.lostAt = Date.now()),
      }),
    };
    return candidate;
  });
}
