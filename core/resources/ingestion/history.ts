import { z } from 'zod';
import { creationTimestamp } from '../../cluster/objects.ts';
import { isFinished } from './run.ts';
import type { Ingestion } from './schema.ts';

/**
 * How many finished runs a Dataset or a Schedule keeps, as a CronJob keeps its Jobs: the newest of each outcome
 * stay, older ones are deleted (their Jobs go with them, as their dependents). Runs never end, so without a
 * limit they would grow the store without bound.
 */
export const runHistoryFields = {
  successfulRunsHistoryLimit: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(10)
    .describe('Successful runs kept, newest first; older ones are deleted.'),
  failedRunsHistoryLimit: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(5)
    .describe('Failed or cancelled runs kept, newest first; older ones are deleted.'),
};

export interface RunHistoryLimits {
  successfulRunsHistoryLimit: number;
  failedRunsHistoryLimit: number;
}

const endedAt = (run: Ingestion) => run.status?.finishedAt ?? creationTimestamp(run);

/** The names of the finished runs past the limits: by outcome, all but the newest (by end, then by name). */
export function runsPastHistory(runs: readonly Ingestion[], limits: RunHistoryLimits): string[] {
  const newestFirst = runs
    .filter(isFinished)
    .sort((a, b) => endedAt(b).localeCompare(endedAt(a)) || b.metadata.name.localeCompare(a.metadata.name));
  const succeeded = newestFirst.filter((r) => r.status?.phase === 'successful');
  const otherwise = newestFirst.filter((r) => r.status?.phase !== 'successful');
  return [...succeeded.slice(limits.successfulRunsHistoryLimit), ...otherwise.slice(limits.failedRunsHistoryLimit)].map(
    (r) => r.metadata.name,
  );
}
