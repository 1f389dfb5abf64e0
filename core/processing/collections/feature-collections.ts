/**
 * `load_features` over the managed feature collections: a `FeatureCollection` resource's served GeoParquet file
 * (`status.path`), read into GeoJSON features in their stored CRS, each with its `idProperty` value as its id.
 */
import { readFile } from 'node:fs/promises';
import type { ResourceReader } from '../jobs/pinned.ts';
import { STORED_CRS } from '../../features/crs.ts';
import { readGeoParquetDocument } from '../../features/geoparquet-read.ts';
import { featureCollectionKind, type FeatureCollection } from '../../resources/feature-collection/schema.ts';
import { isSafeName, storeFile } from '../../stores/layout.ts';
import { featuresOfArgument } from '../values/geojson.ts';
import type { FeatureCollectionResolver } from '../services.ts';

export interface StoredFeatureCollectionsOptions {
  cluster: ResourceReader;
  namespace: string;
  storageRoot: string;
}

export function storedFeatureCollections({
  cluster,
  namespace,
  storageRoot,
}: StoredFeatureCollectionsOptions): FeatureCollectionResolver {
  return {
    async get(id) {
      if (!isSafeName(id)) return undefined;
      const collection = await cluster.get<FeatureCollection>(featureCollectionKind, id, namespace);
      const path = collection?.status?.path;
      if (!path) return undefined;
      const { document, crs } = await readGeoParquetDocument(await readFile(storeFile(storageRoot, path)), id);
      // Each feature's id is its value of the collection's id property (the org unit id of a DHIS2 boundary).
      const idProperty = collection.spec.idProperty;
      const features = featuresOfArgument(document, 'load_features', 'id').map((feature) => {
        const id = idProperty === undefined ? undefined : feature.properties[idProperty];
        return typeof id === 'string' || typeof id === 'number' ? { ...feature, id } : feature;
      });
      return { features, crs: crs ?? STORED_CRS };
    },
  };
}
