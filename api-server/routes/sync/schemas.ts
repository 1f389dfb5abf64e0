import { z } from 'zod';
import { datasetRecordSchema } from '../../records/dataset.ts';
import { SYNC_ACTIONS, SYNC_REASONS, TARGET_END_SOURCES } from '../../../core/sync/plan.ts';

/** DESIGN.md §4 `SyncDetail`: what a sync does or would do; docs/sync.md explains each value. */
export const syncDetailSchema = z
  .object({
    source_dataset_id: z.string().describe('Data source the dataset was created from.'),
    sync_kind: z.enum(['temporal', 'release', 'static']),
    action: z.enum(SYNC_ACTIONS),
    reason: z.enum(SYNC_REASONS),
    message: z.string(),
    current_start: z.string().nullable().describe('First period of the committed store.'),
    current_end: z.string().nullable().describe('Last period of the committed store.'),
    target_end: z.string().nullable().describe('Last period the sync reaches.'),
    target_end_source: z.enum(TARGET_END_SOURCES).nullable(),
    delta_start: z.string().nullable().describe('First period to fetch.'),
    delta_end: z.string().nullable().describe('Last period to fetch.'),
  })
  .meta({ id: 'SyncDetail' });

export const syncPlanQuerySchema = z.object({
  end: z.string().optional().describe('Last period to reach, in the dataset-native form; blank or absent: today.'),
});

export const syncRequestSchema = z
  .object({
    end: z.string().nullish().describe('Last period to reach, in the dataset-native form; default today.'),
    publish: z.boolean().default(true).describe('Publish the dataset when the sync adds data.'),
  })
  .strict()
  .meta({ id: 'SyncRequest' });

export const syncResponseSchema = z
  .object({
    sync_id: z.string().nullable().describe('The run (job id) that synced; null when nothing had to run.'),
    status: z
      .string()
      .describe('completed, up_to_date or not_syncable; failed or cancelled when the run did not complete.'),
    message: z.string(),
    dataset: datasetRecordSchema.nullable(),
    sync_detail: syncDetailSchema,
  })
  .meta({ id: 'SyncResponse' });
