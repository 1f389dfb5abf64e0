import { z } from 'zod';
import { analyticsTableSpecSchema, analyticsTableVersionSchema } from '../../core/resources/analytics-table/schema.ts';

/**
 * What the AnalyticsTable controller hands an attempt: the table's spec, the Dataset(s) and FeatureCollection as
 * they were when it started (the worker reads their served files and needs no access to the cluster), the version
 * it may extend (absent: a whole build), and the versions retention keeps.
 */
export const analyticsTableInputSchema = z.object({
  table: z.string().min(1),
  namespace: z.string().min(1),
  attempt: z.number().int().min(1),
  /** The spec's generation, which the version records. */
  generation: z.number().int().min(0),
  storageRoot: z.string().min(1),
  spec: analyticsTableSpecSchema,
  resources: z.array(
    z.looseObject({
      apiVersion: z.string(),
      kind: z.string(),
      metadata: z.looseObject({ name: z.string(), namespace: z.string().optional() }),
    }),
  ),
  previous: analyticsTableVersionSchema.optional(),
  keep: z.array(z.string()),
});

export type AnalyticsTableInput = z.infer<typeof analyticsTableInputSchema>;

export const analyticsTableResultSchema = analyticsTableVersionSchema;
