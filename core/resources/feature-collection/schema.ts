import { z } from 'zod';
import {
  artifactVersionSchema,
  coverageSchema,
  dateTime,
  freeForm,
  license,
  publicationSchema,
  statusBase,
} from '../common.ts';
import { defineKind } from '../kind.ts';
import { featureCollectionConditions } from './conditions.ts';

export const featureCollectionSpecSchema = z
  .object({
    name: z.string().min(1).describe('Display name.'),
    description: z.string().optional().describe('What the features are.'),
    source: z.string().optional().describe('Name of the DataSource (itemType feature) it is fetched from.'),
    provider: z
      .object({ name: z.string().min(1), parameters: freeForm('Provider parameters.').optional() })
      .optional()
      .describe('Provider, when not taken from a DataSource.'),
    license,
    licenseUrl: z.string().optional().describe('URL of the license text.'),
    attribution: z.string().optional().describe('Required attribution.'),
    idProperty: z.string().min(1).describe('Property each feature is identified by.'),
    publish: z.boolean().default(true).describe('Publish once stored.'),
  })
  .describe('Desired state of a feature collection (boundaries, org units).');

export const featureCollectionStatusSchema = z
  .object({
    ...statusBase,
    featureCount: z.number().int().min(0).optional().describe('Number of features stored.'),
    geometryTypes: z.array(z.string()).optional().describe('Geometry types the stored file declares.'),
    primaryGeometry: z.string().optional().describe('Name of the geometry column.'),
    crs: z.string().optional().describe('CRS of the stored geometry.'),
    version: artifactVersionSchema.optional(),
    extent: coverageSchema.optional(),
    lastUpdated: dateTime.optional(),
    path: z.string().optional().describe('Store path of the current GeoParquet file.'),
    publication: publicationSchema.optional(),
  })
  .describe('Observed state of the feature collection.');

export const { kind: featureCollectionKind, schema: featureCollectionSchema } = defineKind({
  kind: 'FeatureCollection',
  plural: 'featurecollections',
  shortNames: ['sfc'],
  description: 'A feature collection stored as GeoParquet: boundaries or organisation units.',
  spec: featureCollectionSpecSchema,
  status: featureCollectionStatusSchema,
  conditions: featureCollectionConditions,
  columns: [{ name: 'Features', type: 'integer', jsonPath: '.status.featureCount' }],
});

export type FeatureCollection = z.infer<typeof featureCollectionSchema>;
