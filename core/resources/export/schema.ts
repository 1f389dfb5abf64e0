import { z } from 'zod';
import { freeForm, secretKeyRef, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

export const exportSpecSchema = z
  .object({
    target: z
      .object({
        type: z.literal('dhis2-data-value-sets').describe('Delivery protocol.'),
        url: z.url({ message: 'must be an absolute http(s) URL' }).describe('Endpoint receiving dataValueSets.'),
        credentialsRef: secretKeyRef.optional().describe('Secret key holding "user:password" or a token.'),
      })
      .describe('Where deliveries go.'),
    mapping: freeForm('How result columns map to the target (data element, period, org unit).').optional(),
  })
  .describe('A delivery target for saved export payloads.');

export const exportStatusSchema = z
  .object({ ...statusBase, lastDelivery: z.string().optional().describe('Name of the last Delivery.') })
  .describe('Observed state of the export.');

export const { kind: exportKind, schema: exportSchema } = defineKind({
  kind: 'Export',
  plural: 'exports',
  shortNames: ['sexp'],
  description: 'A delivery target (a DHIS2-compatible dataValueSets endpoint) for the payloads of completed jobs.',
  spec: exportSpecSchema,
  status: exportStatusSchema,
  columns: [{ name: 'URL', type: 'string', jsonPath: '.spec.target.url' }],
});

export type Export = z.infer<typeof exportSchema>;
