import { z } from 'zod';
import { pageLinksSchema } from '../../pagination.ts';
import { datasetRecordSchema } from '../../records/dataset.ts';
import { linkSchema } from '../../schemas.ts';

export const createIngestionRequestSchema = z
  .object({
    dataset_id: z.string().min(1).describe('Id of a data source as listed by GET /data-sources.'),
    start: z.string().nullish().describe('First period, in the source-native form.'),
    end: z.string().nullish().describe('Last period; defaults to the last complete period.'),
    overwrite: z
      .boolean()
      .default(false)
      .describe(
        'Fetch the requested periods again even when the current version holds them. The new version still holds ' +
          'every stored period: only the requested ones (and any gap to the stored ones) are rewritten.',
      ),
    replace: z
      .boolean()
      .default(false)
      .describe(
        'Narrow the dataset to the requested periods: the new version holds them only, and its dataset.updated ' +
          'event has action `replace`. Without it an ingestion never drops stored periods.',
      ),
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

/** Spec 1's IngestionResponse of an async request: no dataset yet, and links to follow the run. */
export const ingestionAcceptedSchema = ingestionResponseSchema
  .extend({
    dataset: z.null(),
    links: z.array(linkSchema).describe('`monitor`: the job record, as in `Location`; `self`: this ingestion.'),
  })
  .meta({
    id: 'IngestionAccepted',
    description: 'The IngestionResponse of a request with `Prefer: respond-async`, with the links of the run.',
  });

export const ingestionListResponseSchema = z
  .object({
    kind: z.string().default('IngestionList'),
    items: z.array(ingestionResponseSchema),
    links: pageLinksSchema,
  })
  .meta({ id: 'IngestionListResponse' });
