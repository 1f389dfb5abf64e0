import { PeriodError } from '../../../core/periods/index.ts';
import { currentVersionOf } from '../../../core/resources/dataset/schema.ts';
import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import type { RunErrorCode } from '../../../core/runs/errors.ts';
import { planSync, type SyncDetail } from '../../../core/sync/plan.ts';
import type { IngestionObserved } from './observed.ts';

/** What a sync attempt does, decided from the committed store when the attempt starts. */
export type SyncStart =
  /** Fetch `range`; with `base`, on top of that committed version (append, or NetCDF rewritten with it). */
  | { kind: 'fetch'; range: { start: string; end: string }; base?: string; detail: SyncDetail }
  /** Nothing to fetch: the run succeeds without a job and without a dataset.updated event. */
  | { kind: 'upToDate'; detail: SyncDetail }
  | { kind: 'fail'; type: RunErrorCode; message: string };

/**
 * Plans a sync run's attempt from what the store committed, not from the run's first plan: an attempt after
 * an interrupted one starts after the last committed period, so nothing is fetched twice and nothing is lost.
 */
export function syncStart(run: Ingestion, observed: IngestionObserved, now: Date): SyncStart {
  const { source, dataset, committed } = observed;
  if (!source || !dataset)
    return { kind: 'fail', type: 'NotSyncable', message: `Dataset ${run.spec.datasetId} has not been ingested.` };
  if (committed && 'error' in committed) return { kind: 'fail', type: 'StoreUnreadable', message: committed.error };
  let detail: SyncDetail;
  try {
    detail = planSync({ source, dataset, committed, end: run.spec.end, now });
  } catch (err) {
    if (err instanceof PeriodError) return { kind: 'fail', type: 'InvalidRequest', message: err.message };
    throw err;
  }
  switch (detail.action) {
    case 'no_op':
      return { kind: 'upToDate', detail };
    case 'not_syncable':
      return { kind: 'fail', type: 'NotSyncable', message: detail.message };
    case 'append':
      return {
        kind: 'fetch',
        range: { start: detail.delta_start!, end: detail.delta_end! },
        base: currentVersionOf(dataset)!.path,
        detail,
      };
    case 'rematerialize':
      // A newer release replaces every period, a forecast its whole window; a temporal store that cannot append
      // is rewritten with its data.
      if (detail.sync_kind === 'release')
        return { kind: 'fetch', range: { start: detail.current_start!, end: detail.delta_end! }, detail };
      if (detail.reason === 'forecast_window_moved')
        return { kind: 'fetch', range: { start: detail.delta_start!, end: detail.delta_end! }, detail };
      return {
        kind: 'fetch',
        range: { start: detail.delta_start!, end: detail.delta_end! },
        base: currentVersionOf(dataset)!.path,
        detail,
      };
  }
}
