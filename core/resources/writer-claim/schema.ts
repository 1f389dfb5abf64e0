import { z } from 'zod';
import { dateTime, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

/**
 * Which run writes a dataset or feature collection. One per target, named after it; it changes hands only by
 * create (409 when another was first) or by an update at the version read (409 when another changed it since), so
 * exactly one run writes a target at a time (core/resources/writer-claim/claim.ts). A kind of Stratus's own rather than a
 * `coordination.k8s.io` Lease: the operator and the API server may then hold it without any right on Leases, which
 * in a cluster-wide install would reach every namespace's leader elections.
 */
export const writerClaimSpecSchema = z
  .object({
    holder: z.string().min(1).describe('The Ingestion that writes the target.'),
    acquiredAt: dateTime.describe('When the holder claimed the target.'),
  })
  .describe('The run that writes the target named like this record.');

export const { kind: writerClaimKind, schema: writerClaimSchema } = defineKind({
  kind: 'WriterClaim',
  plural: 'writerclaims',
  shortNames: ['swriter'],
  description: 'The run that writes a dataset or feature collection: one writer per target.',
  spec: writerClaimSpecSchema,
  status: z.object({ ...statusBase }).describe('Observed state.'),
  columns: [{ name: 'Holder', type: 'string', jsonPath: '.spec.holder' }],
});

export type WriterClaim = z.infer<typeof writerClaimSchema>;
