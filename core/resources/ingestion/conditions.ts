import { runErrorCodes, type RunErrorCode } from '../../runs/errors.ts';
import type { ConditionCatalogue, EventReasonEntry, ReasonEntry } from '../conditions.ts';

/** One entry for every run error code: a failed run's reason is the code it failed with. */
function forEveryRunError<Entry>(entry: Entry): Record<RunErrorCode, Entry> {
  return Object.fromEntries(runErrorCodes.map((code) => [code, entry])) as Record<RunErrorCode, Entry>;
}

const failed = forEveryRunError<ReasonEntry>({
  state: 'stalled',
  description: 'The run failed with this run error ([errors.md](errors.md#run-errors)); committed periods are kept.',
});

const failedBeforeAnAttempt = forEveryRunError<EventReasonEntry>({
  type: 'Warning',
  description:
    'The planner failed the run with this run error before or after an attempt, not through one ([errors.md](errors.md#run-errors)).',
});

/** The reasons of an Ingestion's conditions and Events: its run lifecycle. */
export const ingestionConditions = {
  reasons: {
    Started: {
      state: 'progressing',
      description: 'An attempt was started (accepted, or running again after a retry).',
    },
    Running: { state: 'progressing', description: 'The attempt runs; `status.progress` follows it.' },
    WaitingForWriter: {
      state: 'progressing',
      description: 'An earlier run writes the same dataset or feature collection; this one starts after it.',
    },
    Retrying: {
      state: 'progressing',
      description: 'The attempt failed and another starts at `status.retryAfter`; `status.error` says why.',
    },
    Succeeded: { state: 'ready', description: 'The run succeeded and switched its target to what it wrote.' },
    Reused: {
      state: 'ready',
      description: 'The current version already holds the requested periods: the run succeeded without an attempt.',
    },
    UpToDate: { state: 'ready', description: 'A sync found nothing to fetch: the run succeeded without an attempt.' },
    Cancelled: { state: 'stalled', description: 'The run was cancelled; committed periods are kept.' },
    ...failed,
  },
  events: {
    Succeeded: { type: 'Normal', description: 'The run succeeded.' },
    Cancelled: { type: 'Normal', description: 'The run was cancelled while no attempt was running.' },
    AttemptFailed: { type: 'Warning', description: 'An attempt failed and the run retries.' },
    Failed: { type: 'Warning', description: 'The last attempt failed, and so did the run.' },
    ...failedBeforeAnAttempt,
  },
} as const satisfies ConditionCatalogue;
