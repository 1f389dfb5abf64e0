import { z } from 'zod';
import { artifactVersionSchema } from '../core/resources/common.ts';
import { runErrorCodes } from '../core/runs/errors.ts';

/**
 * Records of the climate data API (spec 1) as zod schemas. Routes validate and serialize with them, and the
 * OpenAPI description's components come from their ids: one definition per record.
 */

export const linkSchema = z
  .object({ href: z.string(), rel: z.string(), title: z.string() })
  .meta({ id: 'Link', description: 'A navigation link.' });

export const validationErrorSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])).describe('Where: "path", "query" or "body", then the field path.'),
    msg: z.string().describe('What is wrong.'),
    type: z.string().describe('Machine-readable kind of failure, e.g. too_small, invalid_type.'),
  })
  .meta({ id: 'ValidationError' });

export const httpValidationErrorSchema = z
  .object({ detail: z.array(validationErrorSchema) })
  .meta({ id: 'HTTPValidationError', description: 'A request failed validation.' });

export const errorDetailSchema = z
  .object({ detail: z.string() })
  .meta({ id: 'ErrorDetail', description: 'Error body of the native API.' });

export const healthStatusSchema = z
  .object({
    status: z.enum(['healthy', 'degraded', 'unhealthy']).meta({ id: 'Status' }),
    details: z.record(z.string(), z.string()).optional().describe('Why the service is not healthy.'),
  })
  .meta({ id: 'HealthStatus' });

export const appInfoSchema = z
  .object({
    app_version: z.string(),
    python_version: z.string().describe('Kept for client compatibility: the runtime, e.g. "node 24.21.0".'),
    uvicorn_version: z.string().describe('Kept for client compatibility: the HTTP server, e.g. "fastify 5.12.8".'),
    node_version: z.string(),
    server: z.string(),
    read_only: z.boolean().default(false),
  })
  .meta({ id: 'AppInfo' });

export const extentRecordSchema = z
  .object({
    name: z.string().nullable(),
    description: z.string().nullable(),
    bbox: z.array(z.number()).length(4).describe('xmin, ymin, xmax, ymax'),
  })
  .meta({ id: 'ExtentRecord' });

export const rootResponseSchema = z
  .object({
    message: z.string(),
    links: z.array(linkSchema),
    api_version: z.string(),
    backend_version: z.string(),
    stac_version: z.string(),
    type: z.literal('Catalog'),
    id: z.string(),
    title: z.string(),
    description: z.string(),
    endpoints: z.array(z.object({ path: z.string(), methods: z.array(z.string()) })),
    conformsTo: z.array(z.string()),
  })
  .meta({
    id: 'RootResponse',
    description: 'Navigation links, and the openEO capabilities document of this backend.',
  });

export const wellKnownSchema = z
  .object({
    versions: z.array(z.object({ url: z.string(), production: z.boolean(), api_version: z.string() })),
  })
  .meta({ id: 'WellKnownDiscovery' });

const coverageSpatialSchema = z
  .object({ xmin: z.number(), ymin: z.number(), xmax: z.number(), ymax: z.number() })
  .meta({ id: 'CoverageSpatial' });

export const artifactCoverageSchema = z
  .object({
    spatial: coverageSpatialSchema,
    spatial_wgs84: coverageSpatialSchema.nullable(),
    temporal: z.object({ start: z.string().nullable(), end: z.string().nullable() }).meta({ id: 'CoverageTemporal' }),
  })
  .meta({ id: 'ArtifactCoverage' });

export const datasetRecordSchema = z
  .object({
    dataset_id: z.string(),
    source_dataset_id: z.string(),
    dataset_name: z.string(),
    short_name: z.string().nullable(),
    description: z.string().nullable(),
    itemType: z.enum(['feature', 'coverage']),
    variable: z.string().nullable(),
    period_type: z.string().nullable(),
    units: z.string().nullable(),
    resolution: z.string().nullable(),
    source: z.string().nullable(),
    source_url: z.string().nullable(),
    license: z.string(),
    license_url: z.string().nullable(),
    extent: artifactCoverageSchema,
    last_updated: z.string(),
    links: z.array(
      z.object({ href: z.string(), rel: z.string(), title: z.string() }).meta({ id: 'DatasetAccessLink' }),
    ),
    publication: z
      .object({
        status: z.enum(['unpublished', 'published']).meta({ id: 'PublicationStatus' }),
        published_at: z.string().nullable(),
      })
      .meta({ id: 'DatasetPublication' }),
  })
  .meta({ id: 'DatasetRecord' });

export const datasetVersionRecordSchema = z
  .object({
    created_at: z.string(),
    format: z.enum(['zarr', 'netcdf', 'icechunk', 'geoparquet']).meta({ id: 'ArtifactFormat' }),
    coverage: artifactCoverageSchema,
    request_scope: z
      .object({
        start: z.string().nullable(),
        end: z.string().nullable(),
        bbox: z.array(z.number()).length(4).nullable(),
      })
      .meta({ id: 'ArtifactRequestScope' })
      .nullable(),
  })
  .meta({ id: 'DatasetVersionRecord' });

export const datasetDetailRecordSchema = datasetRecordSchema
  .extend({ versions: z.array(datasetVersionRecordSchema) })
  .meta({ id: 'DatasetDetailRecord' });

export const datasetListResponseSchema = z
  .object({ kind: z.string().default('DatasetList'), items: z.array(datasetRecordSchema) })
  .meta({ id: 'DatasetListResponse' });

export const dataSourceRecordSchema = z
  .object({
    dataset_id: z.string(),
    dataset_name: z.string(),
    itemType: z.enum(['feature', 'coverage']),
    ingestable: z.boolean().describe('Whether this instance has a provider that can fetch the source.'),
  })
  .catchall(z.unknown())
  .meta({ id: 'DataSourceRecord', description: 'A dataset template: free-form, with itemType and ingestable.' });

export const createIngestionRequestSchema = z
  .object({
    dataset_id: z.string().min(1).describe('Id of a data source as listed by GET /data-sources.'),
    start: z.string().nullish().describe('First period, in the source-native form.'),
    end: z.string().nullish().describe('Last period; defaults to the last complete period.'),
    overwrite: z.boolean().default(false).describe('Regenerate an existing matching artifact.'),
    publish: z.boolean().default(true),
  })
  .strict()
  .meta({ id: 'CreateIngestionRequest' });

export const ingestionResponseSchema = z
  .object({
    ingestion_id: z.string(),
    status: z.string().describe('Execution status: accepted, running, retrying, successful, failed, cancelled.'),
    dataset: datasetRecordSchema.nullable(),
  })
  .meta({ id: 'IngestionResponse' });

export const ingestionListResponseSchema = z
  .object({ kind: z.string().default('IngestionList'), items: z.array(ingestionResponseSchema) })
  .meta({ id: 'IngestionListResponse' });

const jobEventRecordSchema = z
  .object({
    type: z.string(),
    source: z.string(),
    data: z.record(z.string(), z.unknown()).optional(),
    eventID: z.string(),
    time: z.string(),
  })
  .meta({ id: 'JobEvent' });

export const ingestionJobSchema = z
  .object({
    jobID: z.string(),
    processID: z.string().describe('ingestion, sync or feature refresh.'),
    type: z.literal('process'),
    status: z.enum(['accepted', 'running', 'retrying', 'successful', 'failed', 'cancelled']),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    attempt: z.number().int(),
    maxAttempts: z.number().int(),
    progress: z
      .object({ done: z.number(), total: z.number(), percent: z.number(), message: z.string().nullable() })
      .nullable(),
    result: z.record(z.string(), z.unknown()).nullable(),
    error: z
      .object({
        // A string rather than the enum: a run stored by another version of the operator must still serialize.
        type: z.string().describe(`The run error code (docs/errors.md#run-errors): ${runErrorCodes.join(', ')}.`),
        message: z.string(),
      })
      .meta({ id: 'JobError', description: 'Why the run failed, or why its last attempt did while it retries.' })
      .nullable(),
    cancelRequested: z.boolean(),
    retryAfter: z.string().nullable(),
    events: z.array(jobEventRecordSchema),
    links: z.array(linkSchema),
  })
  .meta({ id: 'IngestionJob', description: 'The job record of an ingestion or sync run.' });

/** `f` chooses the representation of an HTML-capable endpoint outright. */
export const formatQuerySchema = z.object({
  f: z.enum(['html', 'json']).optional().describe('Representation: html or json; overrides Accept.'),
});

/** A managed object's id in a path: a DNS-1123 subdomain, which also rules out any traversal. */
export const resourceIdSchema = z
  .string()
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, {
    message: 'must be lower-case letters, digits, "-" and ".", starting and ending with a letter or digit',
  });

/** Error responses every route may give. */
export const commonErrorResponses = {
  422: httpValidationErrorSchema,
  500: errorDetailSchema,
};

export const artifactVersionRecordSchema = artifactVersionSchema.meta({ id: 'ArtifactVersion' });

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
    version: artifactVersionRecordSchema.nullable(),
    extent: artifactCoverageSchema,
    last_updated: z.string(),
  })
  .meta({ id: 'FeatureCollectionRecord' });

export const featureCollectionListResponseSchema = z
  .object({ kind: z.string().default('FeatureCollectionList'), items: z.array(featureCollectionRecordSchema) })
  .meta({ id: 'FeatureCollectionListResponse' });
