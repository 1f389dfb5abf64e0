import type { z } from 'zod';
import { STORED_CRS } from '../../core/features/crs.ts';
import { GEOMETRY_COLUMN } from '../../core/features/geoparquet.ts';
import type { FeatureCollection } from '../../core/resources/feature-collection/schema.ts';
import type { featureCollectionRecordSchema } from '../schemas.ts';

export type FeatureCollectionRecord = z.infer<typeof featureCollectionRecordSchema>;

type StoredStatus = NonNullable<FeatureCollection['status']> & {
  path: string;
  extent: NonNullable<NonNullable<FeatureCollection['status']>['extent']>;
  lastUpdated: string;
};

/** Whether a collection has a stored file: only then is it listed and described (spec 1: registered collections). */
export function isStored(collection: FeatureCollection): collection is FeatureCollection & { status: StoredStatus } {
  const status = collection.status;
  return status?.path !== undefined && status.extent !== undefined && status.lastUpdated !== undefined;
}

export function isPublished(collection: FeatureCollection): boolean {
  return collection.status?.publication?.status === 'published';
}

/** The FeatureCollectionRecord of spec 1 for a stored collection: snake_case, nulls where the resource has nothing. */
export function featureCollectionRecord(
  collection: FeatureCollection & { status: StoredStatus },
): FeatureCollectionRecord {
  const { spec, metadata, status } = collection;
  return {
    id: metadata.name,
    name: spec.name,
    description: spec.description ?? null,
    license: spec.license ?? 'other',
    license_url: spec.licenseUrl ?? null,
    attribution: spec.attribution ?? null,
    id_property: spec.idProperty,
    feature_count: status.featureCount ?? 0,
    geometry_types: status.geometryTypes ?? [],
    primary_geometry: status.primaryGeometry ?? GEOMETRY_COLUMN,
    crs: status.crs ?? STORED_CRS,
    version: status.version ?? null,
    // A status is written by merge patch, where null deletes a member: absent members read as null.
    extent: {
      spatial: status.extent.spatial,
      spatial_wgs84: status.extent.spatialWgs84 ?? null,
      temporal: { start: status.extent.temporal?.start ?? null, end: status.extent.temporal?.end ?? null },
    },
    last_updated: status.lastUpdated,
  };
}
