import { z } from 'zod';
import { datasetDescriptionFields, freeForm, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';
import { dataSourceConditions } from './conditions.ts';

export const dataSourceSpecSchema = z
  .object({
    datasetName: z.string().min(1).describe('Full display name of datasets made from this source.'),
    ...datasetDescriptionFields,
    provider: z
      .object({
        name: z.string().min(1).describe('Provider implementation, e.g. chirps, era5-land, worldpop, sample.'),
        parameters: freeForm('Provider parameters (URLs, variables, credentials references).').optional(),
      })
      .describe('Where and how data is fetched.'),
    idProperty: z
      .string()
      .min(1)
      .optional()
      .describe('For itemType feature: the property each feature is identified by (id_property).'),
    sync: z
      .object({
        kind: z.enum(['temporal', 'release', 'static']).default('temporal').describe('How the source moves forward.'),
        availability: freeForm('Rule that bounds the newest available period.').optional(),
      })
      .optional()
      .describe('Sync behaviour.'),
    temporalDirection: z
      .enum(['past', 'future'])
      .default('past')
      .describe('future for forecasts, whose ingestion may start "from now".'),
    display: z
      .object({
        colormap: z.string().optional().describe('Colormap name for thumbnails and previews.'),
        range: z.array(z.number()).length(2).optional().describe('Value range [min, max] of the colormap.'),
        nodata: z.number().optional().describe('No-data value.'),
      })
      .optional()
      .describe('How values are displayed.'),
  })
  .describe('A dataset template: the metadata and provider of a source of data.');

export const dataSourceStatusSchema = z
  .object({
    ...statusBase,
    ingestable: z.boolean().optional().describe('Whether this instance has a provider that can fetch the source.'),
  })
  .describe('Observed state of the data source.');

export const { kind: dataSourceKind, schema: dataSourceSchema } = defineKind({
  kind: 'DataSource',
  plural: 'datasources',
  shortNames: ['sdsrc'],
  description: 'A dataset template: what a source of climate or earth-observation data holds and how to fetch it.',
  spec: dataSourceSpecSchema,
  status: dataSourceStatusSchema,
  conditions: dataSourceConditions,
  columns: [
    { name: 'Provider', type: 'string', jsonPath: '.spec.provider.name' },
    { name: 'Period', type: 'string', jsonPath: '.spec.periodType' },
    { name: 'Ingestable', type: 'boolean', jsonPath: '.status.ingestable' },
  ],
});

export type DataSource = z.infer<typeof dataSourceSchema>;
