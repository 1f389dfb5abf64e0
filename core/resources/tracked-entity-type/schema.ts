import { z } from 'zod';
import { dhis2Uid, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';
import { enableChangeLog } from '../program/schema.ts';

export const trackedEntityTypeSpecSchema = z
  .object({
    uid: dhis2Uid.describe(
      'DHIS2 uid of the tracked entity type; the API finds the resource by it (/api/trackedEntityTypes/{uid}).',
    ),
    displayName: z.string().optional().describe('Display name of the tracked entity type at the target.'),
    enableChangeLog,
  })
  .describe("A DHIS2 tracked entity type of a tracker target: the target's metadata an Export refers to.");

export const trackedEntityTypeStatusSchema = z
  .object({ ...statusBase })
  .describe('Observed state of the tracked entity type.');

export const { kind: trackedEntityTypeKind, schema: trackedEntityTypeSchema } = defineKind({
  kind: 'TrackedEntityType',
  plural: 'trackedentitytypes',
  shortNames: ['stet'],
  description: 'A DHIS2 tracked entity type of a tracker target, with its tracker changelog switch.',
  spec: trackedEntityTypeSpecSchema,
  status: trackedEntityTypeStatusSchema,
  columns: [
    { name: 'UID', type: 'string', jsonPath: '.spec.uid' },
    { name: 'ChangeLog', type: 'boolean', jsonPath: '.spec.enableChangeLog' },
  ],
});

export type TrackedEntityType = z.infer<typeof trackedEntityTypeSchema>;
