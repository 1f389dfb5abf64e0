import { z } from 'zod';
import { creationTimestamp } from '../../core/cluster/objects.ts';
import type { Ingestion } from '../../core/resources/ingestion/schema.ts';
import { runErrorCodes } from '../../core/runs/errors.ts';
import { linkSchema } from '../schemas.ts';

const jobEventRecordSchema = z
  .object({
    type: z.string(),
    source: z.string(),
    data: z.record(z.string(), z.unknown()).optional(),
    eventID: z.string(),
    time: z.string(),
  })
  .meta({ id: 'JobEvent' });

/** The job record of a run (DESIGN.md §4), which every route that starts runs answers with 202. */
export const ingestionJobSchema = z
  .object({
    jobID: z.string(),
    processID: z.string().describe('ingestion, sync or feature refresh.'),
    type: z.literal('process'),
    status: z.enum(['accepted', 'running', 'retrying', 'successful', 'failed', 'cancelled']),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    attempt: z.number().int(),
    maxAttempts: z.number().int(),
    progress: z
      .object({ done: z.number(), total: z.number(), percent: z.number(), message: z.string().nullable() })
      .nullable(),
    result: z.record(z.string(), z.unknown()).nullable(),
    error: z
      .object({
        // A string rather than the enum: a run stored by another version of the operator must still serialize.
        type: z.string().describe(`The run error code (docs/errors.md#run-errors): ${runErrorCodes.join(', ')}.`),
        message: z.string(),
      })
      .meta({ id: 'JobError', description: 'Why the run failed, or why its last attempt did while it retries.' })
      .nullable(),
    cancelRequested: z.boolean(),
    retryAfter: z.string().nullable(),
    events: z.array(jobEventRecordSchema),
    links: z.array(linkSchema),
  })
  .meta({ id: 'IngestionJob', description: 'The job record of an ingestion or sync run.' });

export type IngestionJob = z.infer<typeof ingestionJobSchema>;

/** DESIGN.md §4 names the processes; a resource's mode cannot hold the space of `feature refresh`. */
const PROCESS_ID: Record<Ingestion['spec']['mode'], string> = {
  ingestion: 'ingestion',
  sync: 'sync',
  'feature-refresh': 'feature refresh',
};

/** What a run resource's status holds that its job record shows, whatever the kind of run. */
export interface RunStatus {
  phase?: IngestionJob['status'];
  startedAt?: string;
  finishedAt?: string;
  attempt?: number;
  progress?: { done: number; total: number; percent: number; message?: string };
  error?: { type: string; message: string };
  retryAfter?: string;
  events?: IngestionJob['events'];
}

/** The members of a job record that every kind of run fills alike from its resource and status. */
export function runRecordFields(run: { metadata: unknown }, status: RunStatus) {
  return {
    jobID: (run.metadata as { name: string }).name,
    type: 'process' as const,
    status: status.phase ?? 'accepted',
    createdAt: creationTimestamp(run),
    startedAt: status.startedAt ?? null,
    finishedAt: status.finishedAt ?? null,
    attempt: status.attempt ?? 0,
    progress: status.progress ? { ...status.progress, message: status.progress.message ?? null } : null,
    error: status.error ?? null,
    retryAfter: status.retryAfter ?? null,
    events: status.events ?? [],
  };
}

/** Where the job record of run `name` is served: every run kind's 202 points there (`Location`). */
export const jobRecordHref = (name: string) => `/ingestions/jobs/${name}`;

/** The job record of a run (DESIGN.md §4), from the Ingestion resource and its status. */
export function ingestionJob(run: Ingestion): IngestionJob {
  const { metadata, spec } = run;
  const status = run.status ?? {};
  const id = metadata.name;
  return {
    ...runRecordFields(run, status),
    processID: PROCESS_ID[spec.mode],
    maxAttempts: spec.maxAttempts,
    result: status.result ?? null,
    cancelRequested: spec.cancelRequested,
    links: [
      { href: jobRecordHref(id), rel: 'self', title: 'Job record' },
      { href: `/ingestions/${id}`, rel: 'ingestion', title: 'Ingestion' },
    ],
  };
}
