import { KubeConfig } from '@kubernetes/client-node';
import { KubernetesCluster } from './cluster.ts';
import { RestClient } from './rest.ts';
import { DEFAULT_WATCH_TIMINGS, type WatchTimings } from './watch.ts';

export { KubernetesCluster } from './cluster.ts';
export type { WatchTimings } from './watch.ts';

export interface KubernetesClusterOptions {
  /** A kubeconfig file; without one, `$KUBECONFIG`, `~/.kube/config` or the in-cluster service account. */
  kubeconfig?: string;
  /** How long watches last before they are renewed (tests shorten them); client-go's reflector's by default. */
  watchTimings?: Partial<WatchTimings>;
}

/** Connects the Cluster port to the API server that the kubeconfig (or the pod's service account) names. */
export function openKubernetesCluster(options: KubernetesClusterOptions = {}): KubernetesCluster {
  const config = new KubeConfig();
  if (options.kubeconfig) config.loadFromFile(options.kubeconfig);
  else config.loadFromDefault();
  return new KubernetesCluster(new RestClient(config), { ...DEFAULT_WATCH_TIMINGS, ...options.watchTimings });
}
