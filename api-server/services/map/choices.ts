import type { InstanceConfig } from '../../../core/config/index.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { isPublished, isStored } from '../../records/feature-collection.ts';
import type { MapChoices } from '../../views/map.ts';

/** Formats whose versions have map tiles (`services/tiles/`): NetCDF files have none. */
const TILED_FORMATS = new Set(['zarr', 'icechunk']);

/**
 * What the map viewer offers, on the map page, a dataset's page and a feature collection's page: the datasets
 * with a served tiled version, the published feature collections (their GeoJSON is served), by name.
 */
export async function mapChoices(
  cluster: Cluster,
  namespace: string,
  config: InstanceConfig,
): Promise<Pick<MapChoices, 'datasets' | 'collections' | 'bbox' | 'basemap'>> {
  const [datasets, collections] = await Promise.all([
    cluster.list<Dataset>(datasetKind, { namespace }),
    cluster.list<FeatureCollection>(featureCollectionKind, { namespace }),
  ]);
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  return {
    datasets: datasets.items
      .filter((d) => TILED_FORMATS.has(d.spec.format) && currentVersionOf(d) !== undefined)
      .map((d) => ({ id: d.metadata.name, name: d.spec.datasetName ?? d.metadata.name, units: d.spec.units ?? null }))
      .sort(byName),
    collections: collections.items
      .filter((c) => isStored(c) && isPublished(c))
      .map((c) => ({ id: c.metadata.name, name: c.spec.name }))
      .sort(byName),
    bbox: config.instance.bbox,
    basemap: config.map.basemap,
  };
}
