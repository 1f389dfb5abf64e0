import { z } from 'zod';
import { changelogEntrySchema } from '../../../core/exports/changelog.ts';
import { deliveryChunkSchema, deliveryReportSchema } from '../../../core/resources/delivery/schema.ts';
import { analyticsStatistics } from '../../../core/resources/analytics-table/schema.ts';
import { exportPeriodType } from '../../../core/resources/export/schema.ts';
import { ingestionJobSchema } from '../../records/ingestion-job.ts';

export const deliveryTableRequestSchema = z
  .strictObject({
    name: z.string().min(1).describe('The AnalyticsTable; its served version is delivered.'),
    statistic: z.enum(analyticsStatistics).describe('One of the statistics of the table.'),
    period_type: exportPeriodType.describe('One of the period types of the table.'),
    periods: z
      .array(z.string().min(1))
      .min(1)
      .describe(
        'DHIS2 period ids of the table (`202401`) and DHIS2 relative periods (`LAST_12_MONTHS`), resolved when the delivery is asked for.',
      ),
    org_units: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Org unit ids of the table (feature ids); absent: every org unit.'),
  })
  .meta({
    id: 'DeliveryTableSource',
    description:
      "An analytics table's values as the payload: each org unit's value of the statistic in each period, as the data element `<table>.<statistic>` (which the export's mapping may map).",
  });

export const deliveryRequestSchema = z
  .strictObject({
    job_id: z.string().min(1).optional().describe('The finished batch job whose dhis2-json result is delivered.'),
    table: deliveryTableRequestSchema.optional(),
    dry_run: z.boolean().default(false).describe('Validate at the target without importing.'),
  })
  .refine((body) => (body.job_id === undefined) !== (body.table === undefined), {
    message: 'give exactly one of job_id and table',
    path: ['job_id'],
  })
  .meta({ id: 'DeliveryRequest', description: 'What to deliver: exactly one of `job_id` and `table`.' });

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
    job_id: z.string().nullable().describe('The source batch job; null for a table source.'),
    table: z
      .object({
        name: z.string(),
        version: z.string().describe('The version of the table delivered.'),
        statistic: z.string(),
        period_type: z.string(),
        periods: z.array(z.string()).describe('Period ids, relative periods resolved.'),
        org_units: z.array(z.string()).nullable(),
      })
      .nullable()
      .describe('The analytics table source; null for a job source.'),
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
