import type { ConditionCatalogue } from '../conditions.ts';

/** The reasons of an AnalyticsTable's conditions and Events. */
export const analyticsTableConditions = {
  reasons: {
    Waiting: {
      state: 'progressing',
      description:
        'The source (the dataset, or every dataset the workflow loads) or the feature collection has nothing served yet; the build starts when they do.',
    },
    Building: {
      state: 'progressing',
      description:
        'A worker computes the table (all periods, or the new and rewritten ones); `status.progress` follows it.',
    },
    Retrying: {
      state: 'progressing',
      description: 'The worker of the attempt failed; another starts at `status.retryAfter`.',
    },
    Ready: {
      state: 'ready',
      description: 'The table at `status.table` answers for the source version it names.',
    },
    Failed: {
      state: 'stalled',
      description:
        'The build failed; `status.error` says why. The previous table is served. Also a source that names both a dataset and a workflow, or neither (which a CRD cannot refuse).',
    },
  },
  events: {
    Published: { type: 'Normal', description: 'A new version of the table was published.' },
    Failed: { type: 'Warning', description: 'A build failed.' },
    FilesLeft: {
      type: 'Warning',
      description: "A deleted table's files could not be removed; the message says where they are.",
    },
  },
} as const satisfies ConditionCatalogue;
