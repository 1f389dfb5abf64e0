import type { ReasonOf } from '../../../core/resources/conditions.ts';
import { featureCollectionConditions } from '../../../core/resources/feature-collection/conditions.ts';
import type { FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import type { Plan } from '../../runtime/actions.ts';
import { readinessConditions, readinessOf, type Readiness } from '../../runtime/readiness.ts';

/** The newest refresh run of a collection, as far as its readiness is concerned. */
export interface RefreshRun {
  name: string;
  finished: boolean;
  phase?: string;
  error?: { type: string; message: string };
}

export interface FeatureCollectionObserved {
  /** Whether the template named by `spec.source` exists (true when the collection names no template). */
  sourceExists: boolean;
  /** The newest refresh run of this collection, if there was one. */
  latestRun: RefreshRun | undefined;
}

function summaryOf(collection: FeatureCollection, observed: FeatureCollectionObserved): Readiness {
  const { status, spec } = collection;
  const run = observed.latestRun;
  const refreshing = run && !run.finished ? `; refresh ${run.name} is running` : '';
  const failed = run?.phase === 'failed' ? `; the last refresh (${run.name}) failed: ${run.error?.message ?? ''}` : '';
  const summary = (reason: ReasonOf<typeof featureCollectionConditions>, message: string) =>
    readinessOf(featureCollectionConditions, reason, message);
  if (status?.path)
    return summary('Stored', `Serving ${status.featureCount ?? 0} features from ${status.path}${refreshing}${failed}`);
  if (spec.source && !observed.sourceExists)
    return summary('SourceNotFound', `DataSource ${spec.source} does not exist.`);
  if (run && !run.finished) return summary('Refreshing', `Refresh ${run.name} is running.`);
  if (run?.phase === 'failed')
    return summary(
      'RefreshFailed',
      `Refresh ${run.name} failed (${run.error?.type ?? 'Unknown'}): ${run.error?.message ?? ''}`,
    );
  return summary(
    'AwaitingRefresh',
    `Nothing is stored yet; POST /features/${collection.metadata.name}/refresh fetches it.`,
  );
}

/**
 * A feature collection is Ready while a GeoParquet file is stored and served, even when a later refresh failed
 * (the previous file stays served, and the message says so). Before the first stored file it is Reconciling
 * while a refresh runs or is awaited, and Stalled when its template is missing or its refresh failed.
 */
export function planFeatureCollection(
  collection: FeatureCollection,
  observed: FeatureCollectionObserved,
  now: Date,
): Plan {
  const readiness = summaryOf(collection, observed);
  const status = collection.status ?? {};
  const conditions = readinessConditions(
    status.conditions,
    readiness,
    collection.metadata.generation as number | undefined,
    now,
  );
  return {
    actions: [{ kind: 'patchStatus', status: { ...status, conditions } }],
    outcome: { kind: 'done', reason: readiness.reason },
  };
}
