import { z } from 'zod';
import { artifactCoverageSchema } from '../../records/coverage.ts';
import { datasetAccessLinkSchema, datasetRecordSchema } from '../../records/dataset.ts';
import { pageLinksSchema } from '../../pagination.ts';

export const datasetVersionRecordSchema = z
  .object({
    id: z.string().describe('Version id: `/zarr/{dataset_id}@{id}/` and the other readers read this version.'),
    current: z.boolean().describe('Whether readers that name no version are served this one.'),
    snapshot: z.string().nullable().describe('Icechunk snapshot holding the version; readers take it as a name too.'),
    created_at: z.string(),
    superseded_at: z
      .string()
      .nullable()
      .describe('When it stopped being current; retention counts its grace period from here.'),
    removal_requested: z
      .boolean()
      .describe(
        'Asked to be removed (DELETE /datasets/{dataset_id}/versions/{version}); it goes once retention allows.',
      ),
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
    links: z.array(datasetAccessLinkSchema).describe('The readers of this version, by its name.'),
  })
  .meta({ id: 'DatasetVersionRecord' });

export const datasetDetailRecordSchema = datasetRecordSchema
  .extend({ versions: z.array(datasetVersionRecordSchema) })
  .meta({ id: 'DatasetDetailRecord' });

export const datasetListResponseSchema = z
  .object({
    kind: z.string().default('DatasetList'),
    items: z.array(datasetRecordSchema),
    links: pageLinksSchema,
  })
  .meta({ id: 'DatasetListResponse' });
