import { inject } from 'vitest';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { defaultLeaseTimings } from '../../operator/runtime/leader-election.ts';
import { leaderElectionScenarios } from './leader-election.scenarios.ts';

// Production timings (15 s lease, 10 s renew deadline, 2 s retry): the hand-over bound is 19 s.
leaderElectionScenarios('Kubernetes API server', async () => ({
  cluster: openKubernetesCluster({ kubeconfig: inject('kubeconfig') }),
  namespace: 'default',
  timings: defaultLeaseTimings,
}));
