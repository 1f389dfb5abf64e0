import type { z } from 'zod';
import { creationTimestamp } from '../../core/cluster/objects.ts';
import type { Ingestion } from '../../core/resources/ingestion/schema.ts';
import type { ingestionJobSchema } from '../schemas.ts';

export type IngestionJob = z.infer<typeof ingestionJobSchema>;

/** DESIGN.md §4 names the processes; a resource's mode cannot hold the space of `feature refresh`. */
const PROCESS_ID: Record<Ingestion['spec']['mode'], string> = {
  ingestion: 'ingestion',
  sync: 'sync',
  'feature-refresh': 'feature refresh',
};

/** The job record of a run (DESIGN.md §4), from the Ingestion resource and its status. */
export function ingestionJob(run: Ingestion): IngestionJob {
  const { metadata, spec } = run;
  const status = run.status ?? {};
  const id = metadata.name;
  return {
    jobID: id,
    processID: PROCESS_ID[spec.mode],
    type: 'process',
    status: status.phase ?? 'accepted',
    createdAt: creationTimestamp(run),
    startedAt: status.startedAt ?? null,
    finishedAt: status.finishedAt ?? null,
    attempt: status.attempt ?? 0,
    maxAttempts: spec.maxAttempts,
    progress: status.progress ? { ...status.progress, message: status.progress.message ?? null } : null,
    result: status.result ?? null,
    error: status.error ?? null,
    cancelRequested: spec.cancelRequested,
    retryAfter: status.retryAfter ?? null,
    events: status.events ?? [],
    links: [
      { href: `/ingestions/jobs/${id}`, rel: 'self', title: 'Job record' },
      { href: `/ingestions/${id}`, rel: 'ingestion', title: 'Ingestion' },
    ],
  };
}
