import type { Logger } from 'pino';
import { jobKind } from '../../../core/cluster/builtin-kinds.ts';
import { isApiError } from '../../../core/cluster/errors.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import type { RunOfJob } from './job-attempts.ts';
import type { KubernetesJobRunnerOptions } from './runner-options.ts';
import type { BatchJob } from './job-manifest.ts';

/** Deletes a worker Job (its pod in the background); one already gone is fine. */
export async function deleteWorkerJob(
  { cluster, logger }: { cluster: Cluster; logger: Logger },
  job: BatchJob,
  why: string,
): Promise<void> {
  const { name, namespace } = job.metadata;
  logger.info({ job: name, why }, 'deleting a worker Job');
  try {
    await cluster.delete(jobKind, name, namespace, { propagationPolicy: 'Background' });
  } catch (err) {
    if (!isApiError(err, 'NotFound')) logger.warn({ err, job: name }, 'deleting a worker Job failed');
  }
}

/**
 * Deletes a Job whose run is gone. The informers' views may lag each other (a Job made for a run just created):
 * a read decides.
 */
export async function deleteIfOrphan(cluster: Cluster, logger: Logger, job: BatchJob, run: RunOfJob): Promise<void> {
  try {
    const current = await cluster.get(run.kind, run.name, run.namespace);
    if (current?.metadata.uid !== run.uid) await deleteWorkerJob({ cluster, logger }, job, 'its run is gone');
  } catch (err) {
    logger.warn({ err, job: job.metadata.name }, 'reading the run of a worker Job failed');
  }
}

/** Deletes the Jobs of runs in other namespaces that are gone: no garbage collector does it for them. */
export function sweepOrphans(
  { cluster, logger, namespaces }: Pick<KubernetesJobRunnerOptions, 'cluster' | 'logger' | 'namespaces'>,
  jobs: readonly BatchJob[],
  runOf: (job: BatchJob) => RunOfJob | undefined,
  known: ReadonlyMap<string, unknown>,
): void {
  for (const job of jobs) {
    const run = runOf(job);
    if (!run || job.metadata.ownerReferences?.length || known.has(run.uid)) continue;
    if (namespaces?.length && !namespaces.includes(run.namespace ?? '')) continue;
    void deleteIfOrphan(cluster, logger, job, run);
  }
}
