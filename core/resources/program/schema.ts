import { z } from 'zod';
import { dhis2Uid, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';

/**
 * DHIS2's default of `enableChangeLog` for a new program or tracked entity type: off (the field is a plain Java
 * `boolean` in dhis2-core's `Program` and `TrackedEntityType`). See docs/changelog.md.
 */
export const ENABLE_CHANGE_LOG_DEFAULT = false;

export const enableChangeLog = z
  .boolean()
  .default(ENABLE_CHANGE_LOG_DEFAULT)
  .describe('Tracker changelog on or off: whether deliveries record changelog entries for this target metadata.');

export const programSpecSchema = z
  .object({
    uid: dhis2Uid.describe('DHIS2 uid of the program; the API finds the resource by it (/api/programs/{uid}).'),
    displayName: z.string().optional().describe('Display name of the program at the target.'),
    enableChangeLog,
    trackedEntityType: dhis2Uid
      .optional()
      .describe('DHIS2 uid of the tracked entity type the program enrols; absent for an event program.'),
    programStage: dhis2Uid.optional().describe('DHIS2 uid of the program stage that delivered events go to.'),
  })
  .describe("A DHIS2 program of a tracker target: the target's metadata an Export refers to.");

export const programStatusSchema = z.object({ ...statusBase }).describe('Observed state of the program.');

export const { kind: programKind, schema: programSchema } = defineKind({
  kind: 'Program',
  plural: 'programs',
  shortNames: ['sprog'],
  description: 'A DHIS2 program of a tracker target, with its tracker changelog switch.',
  spec: programSpecSchema,
  status: programStatusSchema,
  columns: [
    { name: 'UID', type: 'string', jsonPath: '.spec.uid' },
    { name: 'ChangeLog', type: 'boolean', jsonPath: '.spec.enableChangeLog' },
  ],
});

export type Program = z.infer<typeof programSchema>;
