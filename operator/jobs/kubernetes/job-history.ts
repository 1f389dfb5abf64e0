import type { BatchJob } from './job-manifest.ts';
import { jobFailed, jobSucceeded } from './job-state.ts';

/** How many finished Jobs of one run stay, by how they ended (like a CronJob's history limits). */
export interface HistoryLimits {
  successful: number;
  failed: number;
}

export const historyDefaults: HistoryLimits = { successful: 1, failed: 3 };

/** Creation order; a second's resolution, so the attempt name breaks ties. */
const createdAt = (job: BatchJob) => `${job.metadata.creationTimestamp ?? ''} ${job.metadata.name}`;

/**
 * The Jobs to delete among the finished Jobs of one run: beyond the newest `limits.successful` that succeeded and
 * the newest `limits.failed` that failed.
 */
export function beyondHistory(finished: readonly BatchJob[], limits: HistoryLimits): BatchJob[] {
  const byOutcome = { successful: finished.filter(jobSucceeded), failed: finished.filter(jobFailed) };
  return (['successful', 'failed'] as const).flatMap((outcome) =>
    byOutcome[outcome].sort((a, b) => createdAt(b).localeCompare(createdAt(a))).slice(limits[outcome]),
  );
}

/** The Jobs of `jobs` (by attempt key) that `finished` picks, past the history limits. */
export function finishedBeyondHistory(
  jobs: ReadonlyMap<string, BatchJob>,
  finished: (key: string, job: BatchJob) => boolean,
  limits: HistoryLimits,
): BatchJob[] {
  return beyondHistory(
    [...jobs].filter(([key, job]) => finished(key, job)).map(([, job]) => job),
    limits,
  );
}
