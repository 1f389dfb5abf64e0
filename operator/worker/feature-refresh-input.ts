import { z } from 'zod';

/**
 * What the Ingestion controller hands a feature refresh attempt: everything it needs, so the worker reads nothing
 * from the cluster.
 */
export const featureRefreshInputSchema = z.object({
  run: z.string().min(1),
  attempt: z.number().int().min(1),
  collectionId: z.string().min(1),
  storageRoot: z.string().min(1),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
  provider: z.object({ name: z.string().min(1), parameters: z.record(z.string(), z.unknown()).default({}) }),
  idProperty: z.string().min(1),
  /** Store paths the collection still references; every other file of the collection is removed. */
  keepFiles: z.array(z.string()),
});

export type FeatureRefreshInput = z.infer<typeof featureRefreshInputSchema>;

export const featureRefreshResultSchema = z.object({
  collectionId: z.string(),
  version: z.object({
    id: z.string(),
    createdAt: z.string(),
    path: z.string(),
    featureCount: z.number().int().min(0),
    geometryTypes: z.array(z.string()),
    bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).nullable(),
  }),
  report: z.object({
    received: z.number().int().min(0),
    stored: z.number().int().min(0),
    repairs: z.array(z.object({ feature: z.string(), action: z.string(), count: z.number().int() })),
  }),
});

export type FeatureRefreshResult = z.infer<typeof featureRefreshResultSchema>;
