import { z } from 'zod';
import { dateTime, jobEventSchema, runStatusFields, statusBase } from '../common.ts';
import { exportPeriodType } from '../export/schema.ts';
import { analyticsStatistics } from '../analytics-table/schema.ts';
import { defineKind } from '../kind.ts';
import { deliveryConditions } from './conditions.ts';

export const deliveryTableSourceSchema = z
  .object({
    name: z.string().min(1).describe('The AnalyticsTable whose values are delivered.'),
    version: z
      .object({ id: z.string().min(1), path: z.string().min(1) })
      .describe('The version of the table served when the delivery was asked for: its id and Parquet file.'),
    statistic: z.enum(analyticsStatistics).describe('The statistic delivered.'),
    periodType: exportPeriodType.describe('The period type of the periods delivered.'),
    periods: z
      .array(z.string().min(1))
      .min(1)
      .describe('DHIS2 period ids delivered, relative periods resolved when the delivery was asked for.'),
    orgUnits: z.array(z.string().min(1)).min(1).optional().describe('Org units delivered; absent: every one.'),
  })
  .describe("An analytics table's values as the payload, instead of a job's.");

export const deliverySpecSchema = z
  .object({
    exportId: z.string().min(1).describe('Export that receives the payload.'),
    jobId: z
      .string()
      .min(1)
      .optional()
      .describe('Finished ProcessingJob whose saved payload (its dhis2-json result) is delivered; or `table`.'),
    table: deliveryTableSourceSchema.optional(),
    dryRun: z.boolean().default(false).describe('Validate at the target (DHIS2 `dryRun=true`) without importing.'),
    idempotencyKey: z.string().max(255).optional().describe('Idempotency-Key of the request that created it.'),
    contentHash: z.string().describe('SHA-256 of the request content, to tell a reuse from a conflict.'),
    requestedBy: z.string().optional().describe('Who asked for it (the changelog records it); absent: anonymous.'),
    requestedAt: dateTime
      .optional()
      .describe(
        'When it was asked for, to the millisecond: deliveries to one target run in this order (creationTimestamp has whole seconds).',
      ),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(3)
      .describe('Worker attempts; each resumes from the checkpointed chunks and never re-sends one.'),
  })
  .describe('One delivery run.');

export const importCountSchema = z
  .object({
    imported: z.number().int().min(0),
    updated: z.number().int().min(0),
    ignored: z.number().int().min(0),
    deleted: z.number().int().min(0),
  })
  .describe("The target's import count.");

export const chunkOutcome = z
  .enum(['pending', 'sending', 'polling', 'imported', 'failed', 'unknown'])
  .describe(
    'pending: not sent; sending: sent, answer awaited; polling: accepted as an asynchronous task; imported: the target answered with an import summary; failed: refused or unreachable, nothing applied; unknown: sent without a definite answer, never sent again.',
  );

export const deliveryChunkSchema = z
  .object({
    index: z.number().int().min(0),
    values: z.number().int().min(0).describe('Values in the chunk.'),
    strategy: z.enum(['CREATE_AND_UPDATE', 'DELETE']),
    outcome: chunkOutcome,
    tries: z
      .number()
      .int()
      .min(0)
      .describe('Requests that carried it (only answers that applied nothing are retried).'),
    importCount: importCountSchema.optional(),
    conflicts: z.number().int().min(0).optional().describe('Values the target refused.'),
    task: z.string().optional().describe('The asynchronous import task, while polled.'),
    message: z.string().optional(),
    readBack: z
      .object({ applied: z.number().int().min(0), missing: z.number().int().min(0) })
      .optional()
      .describe('For an unknown chunk: its values found at the target afterwards, read, not sent again.'),
  })
  .describe('One import request of the delivery and what came of it.');

export const conflictSchema = z
  .object({ object: z.string(), value: z.string(), errorCode: z.string().optional(), values: z.number().int() })
  .describe('A refusal of the target, with how many values it concerned.');

export const deliveryReportSchema = z
  .object({
    dryRun: z.boolean(),
    values: z.number().int().min(0).describe('Values to deliver after mapping and aggregation.'),
    importCount: importCountSchema,
    conflicts: z.array(conflictSchema),
    unknownValues: z.number().int().min(0).describe('Values in chunks whose outcome is unknown.'),
    failedValues: z.number().int().min(0).describe('Values in chunks that failed.'),
    droppedPeriods: z.array(z.string()).describe('Incomplete export periods left out (rules.incompletePeriods: drop).'),
    changelogEntries: z.number().int().min(0).describe('Entries recorded in the export changelog.'),
  })
  .describe('What the delivery did at the target.');

export const deliveryStatusSchema = z
  .object({
    ...statusBase,
    phase: z.enum(['accepted', 'running', 'retrying', 'successful', 'failed']).optional().describe('Delivery status.'),
    attempt: runStatusFields.attempt,
    jobName: runStatusFields.jobName,
    retryAfter: runStatusFields.retryAfter,
    startedAt: runStatusFields.startedAt,
    finishedAt: runStatusFields.finishedAt,
    progress: runStatusFields.progress,
    chunks: z.array(deliveryChunkSchema).optional().describe("Each chunk's checkpointed outcome."),
    report: deliveryReportSchema.optional(),
    error: runStatusFields.error,
    events: z.array(jobEventSchema).optional().describe('export.delivered, once the delivery changed the target.'),
    worker: runStatusFields.worker,
  })
  .describe('Observed state of the delivery.');

export const { kind: deliveryKind, schema: deliverySchema } = defineKind({
  kind: 'Delivery',
  plural: 'deliveries',
  shortNames: ['sdlv'],
  description: 'One delivery of a saved export payload to an Export target.',
  spec: deliverySpecSchema,
  status: deliveryStatusSchema,
  conditions: deliveryConditions,
  columns: [
    { name: 'Export', type: 'string', jsonPath: '.spec.exportId' },
    { name: 'Job', type: 'string', jsonPath: '.spec.jobId' },
    { name: 'Table', type: 'string', jsonPath: '.spec.table.name' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  ],
});

export type Delivery = z.infer<typeof deliverySchema>;
export type DeliveryTableSource = z.infer<typeof deliveryTableSourceSchema>;
export type DeliveryStatus = z.infer<typeof deliveryStatusSchema>;
export type DeliveryChunk = z.infer<typeof deliveryChunkSchema>;
export type DeliveryReport = z.infer<typeof deliveryReportSchema>;
export type ImportCount = z.infer<typeof importCountSchema>;

/** The label that finds an export's deliveries (its history is trimmed by it). */
export const EXPORT_LABEL = 'climate.stratus.dev/export';

/** The labels of a delivery of `exportId`: none for an export name longer than a label value may be (63). */
export const exportLabels = (exportId: string): Record<string, string> =>
  exportId.length <= 63 ? { [EXPORT_LABEL]: exportId } : {};
