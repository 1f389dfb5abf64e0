import type { ConditionCatalogue } from '../conditions.ts';

/** The reasons of a Dataset's conditions; its controller records no Events. */
export const datasetConditions = {
  reasons: {
    Materialized: { state: 'ready', description: 'A version is materialized and served (`status.currentVersion`).' },
    AwaitingIngestion: { state: 'progressing', description: 'No version is materialized yet: an ingestion fills it.' },
    SourceNotFound: {
      state: 'stalled',
      description: 'The DataSource in `spec.source` does not exist, so no ingestion can fill the dataset.',
    },
  },
  events: {},
} as const satisfies ConditionCatalogue;
