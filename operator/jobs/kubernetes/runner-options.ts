import type { Logger } from 'pino';
import type { KindRef } from '../../../core/cluster/objects.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import type { WorkerJobOptions } from './job-manifest.ts';

export interface KubernetesJobRunnerOptions {
  cluster: Cluster;
  logger: Logger;
  /** The kinds whose resources own attempts; the worker reports into their `status.worker`. */
  ownerKinds: KindRef[];
  /** The namespaces of the runs to watch; all of them when empty or absent. Jobs run in `job.namespace`. */
  namespaces?: string[];
  job: WorkerJobOptions;
  /**
   * How many finished Jobs of one run stay, by how they ended (like a CronJob's history limits); older ones are
   * deleted. `ttlSecondsAfterFinished` bounds them too where the cluster's TTL controller runs (beta from 1.21).
   */
  history?: { successful?: number; failed?: number };
  now?: () => Date;
  /** The first pause before creating a Job again after a failure a retry can cure; it doubles up to 30 s. */
  createRetryMs?: number;
  /**
   * Whether the API server runs Indexed Jobs (1.22 and later; true when absent). Without them a split attempt runs
   * in one worker: an older server would drop `completionMode` and run every pod as the same, index-less part.
   */
  indexedJobs?: boolean;
}
