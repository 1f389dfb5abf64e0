import { z } from 'zod';
import { dateTime, freeForm, jobErrorSchema, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

export const deliverySpecSchema = z
  .object({
    exportId: z.string().min(1).describe('Export that receives the payload.'),
    jobId: z.string().min(1).describe('Completed source job whose saved payload is delivered.'),
    dryRun: z.boolean().default(false).describe('Validate at the target without importing.'),
    idempotencyKey: z.string().max(255).optional().describe('Idempotency-Key of the request that created it.'),
    contentHash: z.string().describe('SHA-256 of the request content, to tell a reuse from a conflict.'),
  })
  .describe('One delivery run.');

export const deliveryStatusSchema = z
  .object({
    ...statusBase,
    phase: z.enum(['accepted', 'running', 'retrying', 'successful', 'failed']).optional().describe('Delivery status.'),
    startedAt: dateTime.optional(),
    finishedAt: dateTime.optional(),
    report: freeForm('Import summary returned by the target.').optional(),
    error: jobErrorSchema.optional(),
  })
  .describe('Observed state of the delivery.');

export const { kind: deliveryKind, schema: deliverySchema } = defineKind({
  kind: 'Delivery',
  plural: 'deliveries',
  shortNames: ['sdlv'],
  description: 'One delivery of a saved export payload to an Export target.',
  spec: deliverySpecSchema,
  status: deliveryStatusSchema,
  columns: [
    { name: 'Export', type: 'string', jsonPath: '.spec.exportId' },
    { name: 'Job', type: 'string', jsonPath: '.spec.jobId' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  ],
});

export type Delivery = z.infer<typeof deliverySchema>;
