import type { ConditionCatalogue } from '../conditions.ts';

/** The reasons of a DataSource's conditions and Events. */
export const dataSourceConditions = {
  reasons: {
    ProviderAvailable: {
      state: 'ready',
      description: 'This instance has the provider the source names: it can be ingested.',
    },
    ProviderUnavailable: {
      state: 'stalled',
      description:
        'This instance has no provider of that name (or none for its item type): it cannot be ingested here.',
    },
  },
  events: {
    ProviderUnavailable: { type: 'Warning', description: 'The source became one that this instance cannot ingest.' },
  },
} as const satisfies ConditionCatalogue;
