import { z } from 'zod';
import { CHANGE_LOG_OPS, CHANGE_LOG_PATH } from '../../../core/tracker/change-log-patch.ts';

export const JSON_PATCH_MEDIA_TYPE = 'application/json-patch+json';

export const uidParams = z.object({ uid: z.string().describe('DHIS2 uid of the object (its `spec.uid`).') });

const reference = z.object({ id: z.string().describe('DHIS2 uid.') });

export const programRecordSchema = z
  .object({
    id: z.string().describe('DHIS2 uid.'),
    displayName: z.string().optional(),
    enableChangeLog: z.boolean().describe('Tracker changelog on or off for this program.'),
    programType: z
      .enum(['WITH_REGISTRATION', 'WITHOUT_REGISTRATION'])
      .describe('WITH_REGISTRATION when the program enrols a tracked entity type, else an event program.'),
    trackedEntityType: reference.optional().describe('The tracked entity type it enrols.'),
    programStages: z.array(reference).optional().describe('The program stage delivered events go to.'),
  })
  .meta({ id: 'Program', description: 'A DHIS2 program of a tracker target, as DHIS2 shows one.' });

export const trackedEntityTypeRecordSchema = z
  .object({
    id: z.string().describe('DHIS2 uid.'),
    displayName: z.string().optional(),
    enableChangeLog: z.boolean().describe('Tracker changelog on or off for this tracked entity type.'),
  })
  .meta({ id: 'TrackedEntityType', description: 'A DHIS2 tracked entity type of a tracker target.' });

export const changeLogPatchSchema = z
  .array(
    z.looseObject({
      op: z.enum(CHANGE_LOG_OPS),
      path: z.literal(CHANGE_LOG_PATH),
      value: z.boolean(),
    }),
  )
  .meta({
    id: 'ChangeLogPatch',
    description:
      'JSON Patch (RFC 6902) of the tracker changelog switch: `replace`, `add` or `test` of `/enableChangeLog` with a boolean.',
  });
