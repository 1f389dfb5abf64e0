import { isProviderAvailable } from '../../../core/providers/available.ts';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import { descriptionRecord } from '../../records/dataset.ts';

export interface DataSourceRecord {
  dataset_id: string;
  dataset_name: string;
  itemType: 'coverage' | 'feature';
  ingestable: boolean;
  [field: string]: unknown;
}

/**
 * The template view of a DataSource (spec 1: free-form, with `itemType` and `ingestable`), in the API's
 * snake_case. Provider parameters are left out: they may name Secrets and say nothing a client needs.
 */
export function dataSourceRecord(source: DataSource): DataSourceRecord {
  const { spec } = source;
  return {
    dataset_id: source.metadata.name,
    ...descriptionRecord(spec),
    provider: spec.provider.name,
    sync_kind: spec.sync?.kind ?? 'temporal',
    temporal_direction: spec.temporalDirection,
    display: spec.display ?? null,
    ingestable: isProviderAvailable(spec.provider.name, spec.itemType),
  };
}

/** Rasters first, then feature collections (spec 1), each by id. */
export function sortSources(records: DataSourceRecord[]): DataSourceRecord[] {
  const rank = (r: DataSourceRecord) => (r.itemType === 'coverage' ? 0 : 1);
  return [...records].sort((a, b) => rank(a) - rank(b) || a.dataset_id.localeCompare(b.dataset_id));
}
