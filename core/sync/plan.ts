import { formatPeriod, nextPeriod, parsePeriod, type PeriodType } from '../periods/index.ts';
import type { DataSource } from '../resources/data-source/schema.ts';
import type { Dataset } from '../resources/dataset/schema.ts';
import { canAppend } from '../stores/capabilities.ts';
import { sourceAvailability } from './availability.ts';

/** How a sync moves a dataset forward (DESIGN.md §4). docs/sync.md documents every value. */
export const SYNC_ACTIONS = ['append', 'rematerialize', 'no_op', 'not_syncable'] as const;
export const SYNC_REASONS = [
  'new_periods_available',
  'newer_release_available',
  'forecast_window_moved',
  'up_to_date',
  'end_before_current_end',
  'not_materialized',
  'static_source',
  'no_temporal_axis',
  'provider_unavailable',
  'invalid_availability_rule',
] as const;
export const TARGET_END_SOURCES = ['request', 'today', 'availability'] as const;

export type SyncKind = 'temporal' | 'release' | 'static';

export interface SyncDetail {
  source_dataset_id: string;
  sync_kind: SyncKind;
  action: (typeof SYNC_ACTIONS)[number];
  reason: (typeof SYNC_REASONS)[number];
  message: string;
  current_start: string | null;
  current_end: string | null;
  target_end: string | null;
  target_end_source: (typeof TARGET_END_SOURCES)[number] | null;
  delta_start: string | null;
  delta_end: string | null;
}

export interface SyncPlanInput {
  source: DataSource;
  dataset: Dataset;
  /** First and last period of the committed store (read from its coordinates); undefined when none exists. */
  committed: { start: string; end: string } | undefined;
  /** The requested end, in the dataset's native form; a malformed one throws PeriodError. */
  end: string | undefined;
  now: Date;
}

const startOf = (type: PeriodType, text: string) => parsePeriod(type, text).start.getTime();

/** The target end: the requested end or today's period, never past what the provider has published. */
function targetEnd(type: PeriodType, requested: string | undefined, latest: string, now: Date) {
  const wanted = requested ?? formatPeriod({ type, start: now });
  if (startOf(type, wanted) > startOf(type, latest)) return { end: latest, source: 'availability' as const };
  return { end: wanted, source: requested ? ('request' as const) : ('today' as const) };
}

/**
 * A forecast's window runs from the current period to the provider's horizon and moves with time; each new
 * forecast revises the periods it covers, so a sync fetches the whole window again (rematerialize).
 */
function planForecast(
  base: Omit<SyncDetail, 'action' | 'reason' | 'message'> & { dataset: string },
  type: PeriodType,
  committed: { start: string; end: string },
  end: string | undefined,
  horizon: string,
  now: Date,
): SyncDetail {
  const { dataset, ...fields } = base;
  const windowStart = formatPeriod({ type, start: now });
  const requested = end !== undefined && startOf(type, end) <= startOf(type, horizon);
  const target = requested ? end : horizon;
  const planned = { ...fields, target_end: target, target_end_source: requested ? 'request' : 'availability' } as const;
  if (startOf(type, target) < startOf(type, windowStart))
    return {
      ...planned,
      action: 'no_op',
      reason: 'end_before_current_end',
      message: `The requested end ${end} is before the forecast window, which starts at ${windowStart}.`,
    };
  if (committed.start === windowStart && startOf(type, committed.end) >= startOf(type, target))
    return {
      ...planned,
      action: 'no_op',
      reason: 'up_to_date',
      message: `Dataset ${dataset} holds the current forecast window through ${target}.`,
    };
  return {
    ...planned,
    delta_start: windowStart,
    delta_end: target,
    action: 'rematerialize',
    reason: 'forecast_window_moved',
    message: `The forecast window moved to ${windowStart}..${target}; it is fetched again.`,
  };
}

/** What a sync of `dataset` would do now: no download, no write. A malformed `end` throws PeriodError. */
export function planSync({ source, dataset, committed, end, now }: SyncPlanInput): SyncDetail {
  const kind: SyncKind = source.spec.sync?.kind ?? 'temporal';
  const type = dataset.spec.periodType ?? source.spec.periodType;
  const base = {
    source_dataset_id: source.metadata.name,
    sync_kind: kind,
    current_start: committed?.start ?? null,
    current_end: committed?.end ?? null,
    target_end: null,
    target_end_source: null,
    delta_start: null,
    delta_end: null,
  };
  const notSyncable = (reason: SyncDetail['reason'], message: string): SyncDetail => ({
    ...base,
    action: 'not_syncable',
    reason,
    message,
  });

  if (kind === 'static') return notSyncable('static_source', `${source.metadata.name} is static: nothing to sync.`);
  if (!type) return notSyncable('no_temporal_axis', `${source.metadata.name} declares no period type.`);
  // Checked before the store is consulted, so that a malformed end is refused whatever the store holds.
  if (end !== undefined) parsePeriod(type, end);
  if (!committed)
    return notSyncable(
      'not_materialized',
      `Dataset ${dataset.metadata.name} has no committed version yet; ingest it first.`,
    );
  const available = sourceAvailability(source, type, now);
  if (!available.ok) return notSyncable(available.reason, available.message);
  if (source.spec.temporalDirection === 'future')
    return planForecast({ ...base, dataset: dataset.metadata.name }, type, committed, end, available.latest, now);

  const target = targetEnd(type, end, available.latest, now);
  const planned = { ...base, target_end: target.end, target_end_source: target.source };
  if (startOf(type, target.end) <= startOf(type, committed.end)) {
    const before = end !== undefined && startOf(type, end) < startOf(type, committed.end);
    return {
      ...planned,
      action: 'no_op',
      reason: before ? 'end_before_current_end' : 'up_to_date',
      message: before
        ? `The requested end ${end} is before the stored end ${committed.end}; a sync never removes periods.`
        : `Dataset ${dataset.metadata.name} already holds every period through ${target.end}.`,
    };
  }
  const deltaStart = formatPeriod(nextPeriod(parsePeriod(type, committed.end)));
  const delta = { delta_start: deltaStart, delta_end: target.end };
  if (kind === 'release')
    return {
      ...planned,
      ...delta,
      action: 'rematerialize',
      reason: 'newer_release_available',
      message: `A newer release reaches ${target.end}; the dataset is rewritten from ${committed.start}.`,
    };
  // The schema's defaults, for objects written without them (the embedded store does not apply defaults).
  const append = canAppend({ format: dataset.spec.format ?? 'zarr', zarrVersion: dataset.spec.zarrVersion ?? 2 });
  return {
    ...planned,
    ...delta,
    action: append ? 'append' : 'rematerialize',
    reason: 'new_periods_available',
    message: append
      ? `Periods ${deltaStart} to ${target.end} are available and will be appended.`
      : `Periods ${deltaStart} to ${target.end} are available; the ${dataset.spec.format} store is rewritten whole.`,
  };
}
