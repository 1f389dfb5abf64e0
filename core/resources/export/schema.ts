import { z } from 'zod';
import { dhis2Uid, dnsLabel, refinementReading, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

/** The period types of DHIS2 that exports deliver (its ids: `20240105`, `2024W5`, `202401`, `2024`). */
export const exportPeriodType = z
  .enum(['daily', 'weekly', 'monthly', 'yearly'], { message: 'must be one of daily, weekly, monthly, yearly' })
  .describe('A DHIS2 period type.');
export type ExportPeriodType = z.infer<typeof exportPeriodType>;

export const temporalAggregation = z
  .enum(['sum', 'mean', 'min', 'max'], { message: 'must be one of sum, mean, min, max' })
  .describe('How values of finer periods combine into one of the export period.');

const idMap = (what: string) =>
  z
    .record(z.string().min(1), dhis2Uid)
    .describe(`${what}; when given, every one the payload holds must be mapped (the delivery fails otherwise).`);

export const exportSpecSchema = z
  .object({
    target: z
      .object({
        type: z
          .enum(['dhis2-data-value-sets', 'dhis2-tracker'], {
            message: 'must be dhis2-data-value-sets or dhis2-tracker',
          })
          .describe(
            'Delivery protocol: DHIS2 aggregate data values (`/api/dataValueSets`), or events of an event program (`/api/tracker`).',
          ),
        program: dnsLabel
          .optional()
          .describe(
            'For dhis2-tracker: the Program resource (in the namespace) whose program and stage receive one event per org unit and period.',
          ),
        url: z
          .url({ message: 'must be an absolute http(s) URL' })
          .regex(/^https?:\/\//, { message: 'must be an http(s) URL' })
          .describe('Base URL of the DHIS2 instance (its API is under `<url>/api`).'),
        credentialsSecret: dnsLabel
          .optional()
          .describe('Secret in the namespace with `username` and `password` keys (basic authentication).'),
        tokenSecret: dnsLabel
          .optional()
          .describe('Secret in the namespace with a `token` key: a DHIS2 personal access token (`d2pat_...`).'),
        async: z
          .boolean()
          .default(false)
          .describe('Import asynchronously (`async=true`) and poll the task until it ends, for large imports.'),
        chunkSize: z.number().int().min(1).max(1000).default(1000).describe('Values per import request.'),
        timeoutSeconds: z
          .number()
          .int()
          .min(1)
          .max(3600)
          .default(120)
          .describe('How long one request may take; an import without an answer by then has an unknown outcome.'),
      })
      .describe('Where deliveries go.'),
    mapping: z
      .object({
        dataElements: idMap('Payload data element (the variable) to the target data element').optional(),
        orgUnits: idMap('Payload org unit (the feature id) to the target org unit').optional(),
        periodType: exportPeriodType
          .optional()
          .describe(
            'The period type of the target data elements; absent: the payload periods are delivered as they are.',
          ),
        categoryOptionCombo: dhis2Uid.optional().describe('Category option combo set on every value.'),
        attributeOptionCombo: dhis2Uid.optional().describe('Attribute option combo set on every value.'),
      })
      .default({})
      .describe('How payload values map to the target.'),
    deliveryHistoryLimit: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(50)
      .describe(
        'Ended deliveries kept, newest first; older ones are deleted with their checkpoints, and their Idempotency-Keys may be used again.',
      ),
    rules: z
      .object({
        temporalAggregation: temporalAggregation
          .optional()
          .describe('Required when the payload periods are finer than `mapping.periodType`.'),
        incompletePeriods: z
          .enum(['reject', 'drop'])
          .default('reject')
          .describe('An export period the payload covers only in part: fail the delivery, or leave it out.'),
        missingValues: z
          .enum(['keep', 'delete'])
          .default('keep')
          .describe(
            'A value the target holds for a data element, period and org unit of the payload that the payload has not: keep it, or delete it.',
          ),
      })
      .default({ incompletePeriods: 'reject', missingValues: 'keep' })
      .describe('What a delivery does with payloads that do not fit the target as they are.'),
  })
  .refine((spec) => !(spec.target.credentialsSecret && spec.target.tokenSecret), {
    message: 'set credentialsSecret or tokenSecret, not both',
    path: ['target'],
    ...refinementReading(['target', 'credentialsSecret'], ['target', 'tokenSecret']),
  })
  .refine((spec) => (spec.target.type === 'dhis2-tracker') === (spec.target.program !== undefined), {
    message: 'a dhis2-tracker target names its program, and only it does',
    path: ['target', 'program'],
    ...refinementReading(['target', 'type'], ['target', 'program']),
  })
  .refine((spec) => spec.target.type !== 'dhis2-tracker' || spec.rules.missingValues === 'keep', {
    message: 'missingValues: delete applies to aggregate targets only',
    path: ['rules', 'missingValues'],
    ...refinementReading(['target', 'type'], ['rules', 'missingValues']),
  })
  .describe('A DHIS2-compatible target for the saved export payloads (dhis2-json results) of finished jobs.');

export const exportStatusSchema = z
  .object({ ...statusBase, lastDelivery: z.string().optional().describe('Name of the last Delivery.') })
  .describe('Observed state of the export.');

export const { kind: exportKind, schema: exportSchema } = defineKind({
  kind: 'Export',
  plural: 'exports',
  shortNames: ['sexp'],
  description:
    'A delivery target (DHIS2 aggregate data values or an event program) for the payloads of completed jobs.',
  spec: exportSpecSchema,
  status: exportStatusSchema,
  columns: [{ name: 'URL', type: 'string', jsonPath: '.spec.target.url' }],
});

export type Export = z.infer<typeof exportSchema>;
export type ExportSpec = z.infer<typeof exportSpecSchema>;
