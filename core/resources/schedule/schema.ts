import { z } from 'zod';
import { runHistoryFields } from '../ingestion/history.ts';
import { dateTime, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';
import { scheduleConditions } from './conditions.ts';

export const checkOutcome = z
  .enum(['submitted', 'not_materialized', 'already_running', 'read_only', 'error'])
  .describe('Outcome of one scheduled dataset check.');

/** Time zone of a schedule that names none. */
export const DEFAULT_SCHEDULE_TIMEZONE = 'UTC';

const cronField = /^[\d*,/?LW#A-Z-]+$/i;

export const scheduleSpecSchema = z
  .object({
    datasetId: z.string().min(1).describe('Dataset to keep current.'),
    cron: z
      .string()
      .refine(
        (v) =>
          v.trim().split(/\s+/).length === 5 &&
          v
            .trim()
            .split(/\s+/)
            .every((f) => cronField.test(f)),
        {
          message: 'must be a 5-field cron expression, e.g. "30 2 * * *"',
        },
      )
      .describe('When to check, as a 5-field cron expression.'),
    timezone: z.string().default(DEFAULT_SCHEDULE_TIMEZONE).describe('IANA time zone of the cron expression.'),
    publish: z.boolean().default(true).describe('Publish what the sync adds.'),
    maxAttempts: z.number().int().min(1).max(10).default(3).describe('Attempts of each run it starts.'),
    enabled: z.boolean().default(true).describe('Whether checks run.'),
    ...runHistoryFields,
  })
  .describe('A clock that syncs a dataset.');

export const scheduleStatusSchema = z
  .object({
    ...statusBase,
    nextCheck: dateTime.optional(),
    lastCheck: dateTime.optional(),
    lastOutcome: checkOutcome.optional(),
    lastMessage: z.string().optional().describe('Message of the last check.'),
    lastJobId: z.string().optional().describe('Ingestion started by the last check.'),
  })
  .describe('Runtime state, written by the leader.');

export const { kind: scheduleKind, schema: scheduleSchema } = defineKind({
  kind: 'Schedule',
  plural: 'schedules',
  shortNames: ['ssched'],
  description: 'Keeps a managed dataset current by syncing it on a cron schedule.',
  spec: scheduleSpecSchema,
  status: scheduleStatusSchema,
  conditions: scheduleConditions,
  columns: [
    { name: 'Dataset', type: 'string', jsonPath: '.spec.datasetId' },
    { name: 'Cron', type: 'string', jsonPath: '.spec.cron' },
    { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
    { name: 'Last outcome', type: 'string', jsonPath: '.status.lastOutcome' },
    { name: 'Next check', type: 'date', jsonPath: '.status.nextCheck', priority: 1 },
  ],
});

export type Schedule = z.infer<typeof scheduleSchema>;
