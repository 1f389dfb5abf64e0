import { z } from 'zod';
import { dateTime, freeForm, jobErrorSchema, progressSchema, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

export const processingJobSpecSchema = z
  .object({
    title: z.string().optional().describe('Title of the job.'),
    description: z.string().optional().describe('Description (CommonMark).'),
    process: freeForm('The openEO process: a process graph with optional metadata.'),
    plan: z.string().optional().describe('Billing plan.'),
    budget: z.number().min(0).optional().describe('Maximum cost.'),
    queued: z.boolean().default(false).describe('Set by POST /jobs/{id}/results to start the job.'),
    cancelRequested: z.boolean().default(false).describe('Set to cancel a queued or running job.'),
  })
  .describe('An openEO batch job.');

export const processingJobStatusSchema = z
  .object({
    ...statusBase,
    phase: z
      .enum(['created', 'queued', 'running', 'finished', 'error', 'canceled'])
      .optional()
      .describe('openEO job status.'),
    progress: progressSchema.optional(),
    startedAt: dateTime.optional(),
    finishedAt: dateTime.optional(),
    results: z
      .array(z.object({ name: z.string(), path: z.string(), mediaType: z.string() }))
      .optional()
      .describe('Result files.'),
    error: jobErrorSchema.optional(),
  })
  .describe('Observed state of the job.');

export const { kind: processingJobKind, schema: processingJobSchema } = defineKind({
  kind: 'ProcessingJob',
  plural: 'processingjobs',
  shortNames: ['spj'],
  description: 'An openEO batch job: a process graph run by the worker, with result files.',
  spec: processingJobSpecSchema,
  status: processingJobStatusSchema,
  columns: [
    { name: 'Title', type: 'string', jsonPath: '.spec.title' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  ],
});

export type ProcessingJob = z.infer<typeof processingJobSchema>;
