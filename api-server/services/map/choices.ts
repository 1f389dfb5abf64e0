import { analyticsTableKind, type AnalyticsTable } from '../../../core/resources/analytics-table/schema.ts';
import { authenticationConfigured, type InstanceConfig } from '../../../core/config/index.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { resolveVersion, ZARR_FORMATS } from '../../../core/resources/dataset/served-version.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { holds } from '../../plugins/app/authentication/authority.ts';
import type { Caller } from '../../plugins/app/authentication/caller.ts';
import { isPublished, isStored } from '../../records/feature-collection.ts';
import type { MapChoices } from '../../views/map.ts';
import { servedPeriods } from '../analytics/served-periods.ts';

type DatasetTable = AnalyticsTable & { spec: { source: { dataset: string } } };

/** A table the map can colour: it serves a version and its source is one dataset. */
const servesDatasetTable = (table: AnalyticsTable): table is DatasetTable =>
  table.status?.table !== undefined && table.spec.source.dataset !== undefined;

/**
 * What the map viewer offers, on the map page, a dataset's page and a feature collection's page: the datasets
 * with a served tiled version, the published feature collections (their GeoJSON is served), by name, the analytics tables that serve a
 * version (the org units of a collection coloured by a period's value, `GET /analytics/{table}`), and whether
 * the caller may compute series (`POST /result`).
 */
export async function mapChoices(
  cluster: Cluster,
  namespace: string,
  config: InstanceConfig,
  caller: Caller,
): Promise<Pick<MapChoices, 'datasets' | 'collections' | 'tables' | 'bbox' | 'basemap' | 'series'>> {
  const [datasets, collections, tables] = await Promise.all([
    cluster.list<Dataset>(datasetKind, { namespace }),
    cluster.list<FeatureCollection>(featureCollectionKind, { namespace }),
    cluster.list<AnalyticsTable>(analyticsTableKind, { namespace }),
  ]);
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  return {
    datasets: datasets.items
      // Map tiles (`services/tiles/`) are read from Zarr stores: NetCDF files have none.
      .filter((d) => resolveVersion(d, { formats: ZARR_FORMATS }).version !== undefined)
      .map((d) => ({ id: d.metadata.name, name: d.spec.datasetName ?? d.metadata.name, units: d.spec.units ?? null }))
      .sort(byName),
    collections: collections.items
      .filter((c) => isStored(c) && isPublished(c))
      .map((c) => ({ id: c.metadata.name, name: c.spec.name }))
      .sort(byName),
    tables: tables.items
      // The map colours a dataset's org units: a table whose source is a workflow belongs to no one dataset.
      .filter(servesDatasetTable)
      .map((t) => ({
        id: t.metadata.name,
        dataset: t.spec.source.dataset,
        collection: t.spec.featureCollection,
        statistics: t.spec.statistics,
        periods: servedPeriods(t),
      }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    bbox: config.instance.bbox,
    basemap: config.map.basemap,
    // Asked before the click: a 401 from POST /result would make the browser ask for Basic credentials itself.
    series: !authenticationConfigured(config) || holds(caller, 'F_JOB_MANAGE'),
  };
}
