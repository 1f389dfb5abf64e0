import { z } from 'zod';
import { checkOutcome } from '../../../core/resources/schedule/schema.ts';

const scheduleRecordSchema = z
  .object({
    schedule_id: z.string(),
    dataset_id: z.string(),
    cron: z.string(),
    timezone: z.string(),
    publish: z.boolean(),
    max_attempts: z.number().int(),
    enabled: z.boolean(),
    next_check: z.string().nullable(),
    last_check: z.string().nullable(),
    last_outcome: checkOutcome.nullable().meta({ id: 'CheckOutcome' }),
    last_message: z.string().nullable(),
    last_job_id: z.string().nullable(),
  })
  .meta({ id: 'ScheduleRecord' });

export const scheduleListSchema = z
  .object({
    enabled: z.boolean().describe('Whether schedules may start runs on this instance (false when read-only).'),
    running: z.boolean().describe('Whether a leader is checking the schedules: one has recorded a next check.'),
    timezone: z.string().describe('Time zone of a schedule that names none.'),
    schedules: z.array(scheduleRecordSchema),
  })
  .meta({ id: 'ScheduleList' });
