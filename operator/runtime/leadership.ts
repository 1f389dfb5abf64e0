/**
 * Whether this process may do leader-only work (schedule checks). In embedded mode the single process is the
 * leader; Kubernetes mode implements this with a coordination.k8s.io Lease.
 */
export interface Leadership {
  isLeader(): boolean;
}

export const soleProcess: Leadership = { isLeader: () => true };
