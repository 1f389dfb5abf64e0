import { dhis2Id } from '../../../core/exports/periods.ts';
import { formatPeriod, periodRange } from '../../../core/periods/index.ts';
import { analyticsTableKind, type AnalyticsTable } from '../../../core/resources/analytics-table/schema.ts';
import { authenticationConfigured, type InstanceConfig } from '../../../core/config/index.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { resolveVersion, ZARR_FORMATS } from '../../../core/resources/dataset/served-version.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { holds } from '../../plugins/app/authentication/authority.ts';
import type { Caller } from '../../plugins/app/authentication/caller.ts';
import { isPublished, isStored } from '../../records/feature-collection.ts';
import type { MapChoices, MapTable } from '../../views/map.ts';

/** A served table's periods of each of its types, from the first to the last day its version covers. */
function tablePeriods(table: AnalyticsTable): MapTable['periods'] {
  const covered = table.status?.table?.periods;
  return Object.fromEntries(
    table.spec.periodTypes.map((type) => {
      if (!covered) return [type, []];
      const bound = (day: string) => formatPeriod({ type, start: new Date(`${day}T00:00:00Z`) });
      const periods = periodRange(type, bound(covered.start), bound(covered.end));
      return [type, periods.map((period) => ({ id: dhis2Id(period), name: formatPeriod(period) }))];
    }),
  );
}

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
      .filter((t) => t.status?.table !== undefined)
      .map((t) => ({
        id: t.metadata.name,
        dataset: t.spec.source.dataset,
        collection: t.spec.featureCollection,
        statistics: t.spec.statistics,
        periods: tablePeriods(t),
      }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    bbox: config.instance.bbox,
    basemap: config.map.basemap,
    // Asked before the click: a 401 from POST /result would make the browser ask for Basic credentials itself.
    series: !authenticationConfigured(config) || holds(caller, 'F_JOB_MANAGE'),
  };
}
