import { z } from 'zod';
import { bbox, coverageSchema, datasetDescriptionFields, dateTime, publicationSchema, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';
import { runHistoryFields } from '../ingestion/history.ts';
import { datasetConditions } from './conditions.ts';

/** Versions a Dataset keeps when its spec does not say (`spec.versionHistoryLimit`). */
export const DEFAULT_VERSION_HISTORY_LIMIT = 5;

export const artifactFormat = z
  .enum(['zarr', 'icechunk', 'netcdf', 'geoparquet'], { message: 'must be one of zarr, icechunk, netcdf, geoparquet' })
  .describe('Stored format.');

export const datasetSpecSchema = z
  .object({
    source: z.string().min(1).describe('Name of the DataSource this dataset was created from.'),
    datasetName: z.string().min(1).describe('Full display name.'),
    ...datasetDescriptionFields,
    format: artifactFormat.default('zarr'),
    zarrVersion: z
      .union([z.literal(2), z.literal(3)], { message: 'must be 2 or 3' })
      .default(2)
      .describe('Zarr format version of a zarr store.'),
    publish: z.boolean().default(true).describe('Publish the dataset in the catalogue once materialized.'),
    bbox: bbox.optional(),
    versionHistoryLimit: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(DEFAULT_VERSION_HISTORY_LIMIT)
      .describe(
        'Versions kept, newest first, the served one included. Older versions are kept while a run pins them and ' +
          'for a grace period after they stopped being current, then removed with their files.',
      ),
    removeVersions: z
      .array(z.string())
      .optional()
      .describe(
        'Versions asked to be removed (DELETE /datasets/{id}/versions/{version}): they no longer count among the ' +
          'newest kept, and go once no run pins them and their grace period is over. Never the served one.',
      ),
    ...runHistoryFields,
  })
  .describe('Desired state of a managed dataset.');

export const datasetVersionSchema = z
  .object({
    id: z.string().describe('Version identifier.'),
    createdAt: dateTime,
    format: artifactFormat,
    coverage: coverageSchema,
    requestScope: z
      .object({ start: z.string().nullable(), end: z.string().nullable(), bbox: bbox.nullable() })
      .optional()
      .describe(
        'Provenance: the periods and area the run that produced this version fetched. What the version holds is its coverage.',
      ),
    path: z.string().describe('Store path of this version, relative to the storage root.'),
    snapshot: z.string().optional().describe('Icechunk snapshot holding this version, in an icechunk dataset.'),
    supersededAt: dateTime
      .optional()
      .describe('When another version became current instead: the start of its retention grace period.'),
  })
  .describe('One materialization of the dataset.');

export const datasetStatusSchema = z
  .object({
    ...statusBase,
    extent: coverageSchema.optional(),
    lastUpdated: dateTime.optional(),
    publication: publicationSchema.optional(),
    currentVersion: z.string().optional().describe('Id of the version readers are served.'),
    versions: z.array(datasetVersionSchema).optional().describe('Materializations, oldest first.'),
    thumbnail: z.string().optional().describe('Store path of the thumbnail PNG.'),
  })
  .describe('Observed state of the dataset.');

export const { kind: datasetKind, schema: datasetSchema } = defineKind({
  kind: 'Dataset',
  plural: 'datasets',
  shortNames: ['sdset'],
  description: 'A managed dataset: a raster or feature collection created from a DataSource over the instance extent.',
  spec: datasetSpecSchema,
  status: datasetStatusSchema,
  conditions: datasetConditions,
  columns: [
    { name: 'Source', type: 'string', jsonPath: '.spec.source' },
    { name: 'Format', type: 'string', jsonPath: '.spec.format' },
    { name: 'Start', type: 'string', jsonPath: '.status.extent.temporal.start', priority: 1 },
    { name: 'End', type: 'string', jsonPath: '.status.extent.temporal.end' },
  ],
});

export type DatasetSpec = z.infer<typeof datasetSpecSchema>;
export type DatasetStatus = z.infer<typeof datasetStatusSchema>;
export type DatasetVersion = z.infer<typeof datasetVersionSchema>;
export type Dataset = z.infer<typeof datasetSchema>;

/** The version readers are served: the entry of `status.versions` that `status.currentVersion` names. */
export function currentVersionOf(dataset: Dataset | undefined) {
  return dataset?.status?.versions?.find((v) => v.id === dataset.status?.currentVersion);
}
