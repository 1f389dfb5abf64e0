import type { ConditionCatalogue } from '../conditions.ts';

/** The reasons of a FeatureCollection's conditions; its controller records no Events. */
export const featureCollectionConditions = {
  reasons: {
    Stored: {
      state: 'ready',
      description:
        'A GeoParquet file is stored and served (`status.path`), even when a later refresh runs or failed: the message says so.',
    },
    Refreshing: { state: 'progressing', description: 'Nothing is stored yet and a refresh run is under way.' },
    AwaitingRefresh: {
      state: 'progressing',
      description: 'Nothing is stored yet and no refresh ran: `POST /features/{id}/refresh` fetches it.',
    },
    SourceNotFound: {
      state: 'stalled',
      description: 'Nothing is stored and the template in `spec.source` does not exist.',
    },
    RefreshFailed: {
      state: 'stalled',
      description: 'Nothing is stored and the last refresh run failed; the message gives its run error.',
    },
  },
  events: {},
} as const satisfies ConditionCatalogue;
