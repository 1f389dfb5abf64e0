import type { ConditionCatalogue } from '../conditions.ts';

/** The reasons of a Delivery's conditions and Events. */
export const deliveryConditions = {
  reasons: {
    Accepted: { state: 'progressing', description: 'The delivery is stored; its first attempt is starting.' },
    Waiting: {
      state: 'progressing',
      description: 'Another delivery to the same target runs first: deliveries to one target are serialized.',
    },
    Running: { state: 'progressing', description: 'The attempt sends the chunks; `status.chunks` follows them.' },
    Retrying: {
      state: 'progressing',
      description:
        'The attempt ended before every chunk had an outcome; another resumes from the checkpoint at `status.retryAfter`.',
    },
    Successful: { state: 'ready', description: 'Every chunk reached the target; `status.report` says what it did.' },
    Failed: {
      state: 'stalled',
      description: 'The delivery failed; `status.error` says why, `status.report` what was done.',
    },
  },
  events: {
    Delivered: { type: 'Normal', description: 'A delivery ended with every chunk at the target.' },
    Failed: { type: 'Warning', description: 'A delivery failed.' },
    FilesLeft: {
      type: 'Warning',
      description: "A deleted delivery's checkpoint could not be removed; the message says why.",
    },
  },
} as const satisfies ConditionCatalogue;
