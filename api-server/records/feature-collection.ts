import { z } from 'zod';
import { STORED_CRS } from '../../core/features/crs.ts';
import { GEOMETRY_COLUMN } from '../../core/features/geoparquet.ts';
import { artifactVersionSchema } from '../../core/resources/common.ts';
import type { FeatureCollection } from '../../core/resources/feature-collection/schema.ts';
import { artifactCoverageSchema, coverageRecord } from './coverage.ts';

/** The FeatureCollectionRecord of spec 1, which the feature routes answer. */
export const featureCollectionRecordSchema = z
  .object({
    id: z.string().describe('Stable identifier, also the name it is loaded by.'),
    name: z.string(),
    description: z.string().nullable(),
    license: z.string().default('other'),
    license_url: z.string().nullable(),
    attribution: z.string().nullable(),
    id_property: z.string().describe('Property each feature is identified by.'),
    feature_count: z.number().int(),
    geometry_types: z.array(z.string()).describe('Types the stored file declares; empty means not stated.'),
    primary_geometry: z.string().describe('Name of the geometry column.'),
    crs: z.string().describe('CRS of the stored geometry.'),
    version: artifactVersionSchema.meta({ id: 'ArtifactVersion' }).nullable(),
    extent: artifactCoverageSchema,
    last_updated: z.string(),
  })
  .meta({ id: 'FeatureCollectionRecord' });

export type FeatureCollectionRecord = z.infer<typeof featureCollectionRecordSchema>;

type StoredStatus = NonNullable<FeatureCollection['status']> & {
  path: string;
  extent: NonNullable<NonNullable<FeatureCollection['status']>['extent']>;
  lastUpdated: string;
};

/** A collection with a stored file. */
export type StoredFeatureCollection = FeatureCollection & { status: StoredStatus };

/** Whether a collection has a stored file: only then is it listed and described (spec 1: registered collections). */
export function isStored(collection: FeatureCollection): collection is StoredFeatureCollection {
  const status = collection.status;
  return status?.path !== undefined && status.extent !== undefined && status.lastUpdated !== undefined;
}

export function isPublished(collection: FeatureCollection): boolean {
  return collection.status?.publication?.status === 'published';
}

/** The FeatureCollectionRecord of spec 1 for a stored collection: snake_case, nulls where the resource has nothing. */
export function featureCollectionRecord(collection: StoredFeatureCollection): FeatureCollectionRecord {
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
    extent: coverageRecord(status.extent),
    last_updated: status.lastUpdated,
  };
}
