import { z } from 'zod';
import { artifactCoverageSchema } from '../../records/coverage.ts';
import { datasetRecordSchema } from '../../records/dataset.ts';
import { pageLinksSchema } from '../../pagination.ts';

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
  .object({
    kind: z.string().default('DatasetList'),
    items: z.array(datasetRecordSchema),
    links: pageLinksSchema,
  })
  .meta({ id: 'DatasetListResponse' });
