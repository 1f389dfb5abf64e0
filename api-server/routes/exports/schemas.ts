import { z } from 'zod';
import { changelogEntrySchema } from '../../../core/exports/changelog.ts';
import { deliveryChunkSchema, deliveryReportSchema } from '../../../core/resources/delivery/schema.ts';
import { ingestionJobSchema } from '../../records/ingestion-job.ts';

export const deliveryRequestSchema = z
  .strictObject({
    job_id: z.string().min(1).describe('The finished batch job whose dhis2-json result is delivered.'),
    dry_run: z.boolean().default(false).describe('Validate at the target without importing.'),
  })
  .meta({ id: 'DeliveryRequest' });

export const deliveryAcceptedSchema = z
  .object({
    delivery_job_id: z.string(),
    export_id: z.string(),
    status_url: z.string(),
    report_url: z.string(),
    dry_run: z.boolean(),
    reused: z.boolean().describe('True when the Idempotency-Key named an existing delivery of the same content.'),
  })
  .meta({ id: 'DeliveryAccepted' });

export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/, { message: 'must be 1 to 255 visible ASCII characters' })
    .optional()
    .describe('Makes the request safe to repeat: the same key and content answer the same delivery.'),
});

export const deliveryJobSchema = ingestionJobSchema
  .extend({
    processID: z.string().describe('`export:<export_id>`.'),
    export_id: z.string(),
    job_id: z.string().describe('The source batch job.'),
    dry_run: z.boolean(),
    reused: z.boolean().optional(),
    chunks: z.array(deliveryChunkSchema),
    report: deliveryReportSchema.nullable().describe('What the delivery did at the target; null until it ends.'),
  })
  .meta({
    id: 'DeliveryJob',
    description: 'The job record of a delivery, with its chunks and, once ended, its report.',
  });

export const deliveryProvenanceSchema = z
  .record(z.string(), z.unknown())
  .meta({ id: 'DeliveryProvenance', description: 'STAC Item of the provenance of a delivery.' });

export const changelogQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(1000).default(50),
  type: z.enum(['CREATE', 'UPDATE', 'DELETE']).optional(),
  dataElement: z.string().optional(),
  period: z.string().optional(),
  orgUnit: z.string().optional(),
  delivery: z.string().optional(),
});

export const changelogPageSchema = z
  .object({
    pager: z.object({
      page: z.number().int(),
      pageSize: z.number().int(),
      pageCount: z.number().int(),
      total: z.number().int(),
    }),
    changeLogs: z.array(changelogEntrySchema),
  })
  .meta({ id: 'ExportChangelog', description: 'Entries oldest first, a DHIS2-style pager.' });
