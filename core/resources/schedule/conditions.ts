import type { ConditionCatalogue } from '../conditions.ts';

/** The reasons of a Schedule's conditions and Events (written by the leader only). */
export const scheduleConditions = {
  reasons: {
    Waiting: { state: 'ready', description: 'The schedule waits for its next tick (`status.nextCheck`).' },
    Checked: {
      state: 'ready',
      description:
        'The last tick checked the dataset (`status.lastOutcome`: submitted, not materialized, already running, read-only).',
    },
    Disabled: { state: 'ready', description: '`spec.enabled` is false: no checks are made.' },
    CheckFailed: {
      state: 'stalled',
      description:
        'The last check could not be made: the data source is missing, or it is a forecast, whose moving window is not synced on a schedule.',
    },
    InvalidSchedule: { state: 'stalled', description: 'The cron expression or the time zone is invalid.' },
  },
  events: {
    Submitted: { type: 'Normal', description: 'A tick started a sync run; the message names it.' },
  },
} as const satisfies ConditionCatalogue;
