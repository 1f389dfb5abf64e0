import type { ConditionCatalogue } from '../conditions.ts';

/** The reasons of a ProcessingJob's conditions and Events: openEO's job statuses. */
export const processingJobConditions = {
  reasons: {
    Created: { state: 'ready', description: 'The job is stored and has not been asked to run (`spec.queuedAt`).' },
    Queued: { state: 'progressing', description: 'A run was asked for; its attempt is starting.' },
    Retrying: {
      state: 'progressing',
      description: 'The worker of the attempt failed; another starts at `status.retryAfter` (`spec.maxAttempts`).',
    },
    Running: { state: 'progressing', description: 'The attempt runs the process graph; `status.progress` follows it.' },
    Finished: { state: 'ready', description: 'The run finished; `status.results` lists its files.' },
    Failed: {
      state: 'stalled',
      description: 'The run failed; `status.error` has the openEO error code (`type`) and message.',
    },
    Canceled: { state: 'stalled', description: 'The run was cancelled (`spec.cancelRequested`); it has no results.' },
  },
  events: {
    Finished: { type: 'Normal', description: 'A run finished with results.' },
    Failed: { type: 'Warning', description: 'A run failed.' },
    Canceled: { type: 'Normal', description: 'A run was cancelled.' },
    FilesLeft: {
      type: 'Warning',
      description: "A deleted job's files could not be removed; the message says where they are.",
    },
  },
} as const satisfies ConditionCatalogue;
