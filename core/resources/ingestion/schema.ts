import { z } from 'zod';
import { freeForm, jobEventSchema, runStatusFields, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';
import { ingestionConditions } from './conditions.ts';

export const ingestionPhase = z
  .enum(['accepted', 'running', 'retrying', 'successful', 'failed', 'cancelled'])
  .describe('Execution status of the run.');

export const ingestionSpecSchema = z
  .object({
    source: z.string().min(1).describe('Name of the DataSource to fetch.'),
    datasetId: z.string().optional().describe('Dataset to write; derived from the source when omitted.'),
    mode: z
      .enum(['ingestion', 'sync', 'feature-refresh'])
      .default('ingestion')
      .describe(
        'ingestion, sync forward from the stored end, or feature-refresh (datasetId names the FeatureCollection).',
      ),
    start: z.string().optional().describe('First period, in the source-native form.'),
    end: z.string().optional().describe('Last period, in the source-native form.'),
    overwrite: z
      .boolean()
      .default(false)
      .describe('Fetch the requested periods again even when the current version holds them.'),
    replace: z
      .boolean()
      .optional()
      .describe(
        'Replace the dataset with the requested periods only, dropping the stored periods outside them (narrowing).',
      ),
    publish: z.boolean().default(true).describe('Publish the dataset when the run succeeds.'),
    maxAttempts: z.number().int().min(1).max(10).default(3).describe('Attempts before the run fails.'),
    cancelRequested: z.boolean().default(false).describe('Set to request cooperative cancellation.'),
  })
  .describe('One ingestion or sync run.');

export const ingestionStatusSchema = z
  .object({
    ...statusBase,
    phase: ingestionPhase.optional(),
    attempt: runStatusFields.attempt,
    startedAt: runStatusFields.startedAt,
    finishedAt: runStatusFields.finishedAt,
    retryAfter: runStatusFields.retryAfter,
    progress: runStatusFields.progress,
    result: freeForm('Result of the run.').optional(),
    error: runStatusFields.error,
    events: z.array(jobEventSchema).optional().describe('Events emitted by the run.'),
    jobName: runStatusFields.jobName,
    worker: runStatusFields.worker,
  })
  .describe('Observed state of the run.');

export const { kind: ingestionKind, schema: ingestionSchema } = defineKind({
  kind: 'Ingestion',
  plural: 'ingestions',
  shortNames: ['sing'],
  description: 'One ingestion or sync run that fetches a DataSource into a Dataset.',
  spec: ingestionSpecSchema,
  status: ingestionStatusSchema,
  conditions: ingestionConditions,
  columns: [
    { name: 'Source', type: 'string', jsonPath: '.spec.source' },
    { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Progress', type: 'number', jsonPath: '.status.progress.percent' },
  ],
});

export type IngestionSpec = z.infer<typeof ingestionSpecSchema>;
export type IngestionStatus = z.infer<typeof ingestionStatusSchema>;
export type Ingestion = z.infer<typeof ingestionSchema>;
