import { z } from 'zod';
import { bbox, coverageSchema, periodType } from '../../core/resources/common.ts';
import { artifactFormat } from '../../core/resources/dataset/schema.ts';

/**
 * What the Ingestion controller hands a worker attempt: everything the run needs, so the worker reads nothing
 * from the cluster (in Kubernetes mode it is a Job's argument).
 */
const bboxTuple = z.tuple([z.number(), z.number(), z.number(), z.number()]);

export const ingestionInputSchema = z.object({
  run: z.string().min(1),
  attempt: z.number().int().min(1),
  datasetId: z.string().min(1),
  storageRoot: z.string().min(1),
  bbox: bboxTuple,
  provider: z.object({ name: z.string().min(1), parameters: z.record(z.string(), z.unknown()).default({}) }),
  dataset: z.object({
    name: z.string(),
    variable: z.string().min(1).default('value'),
    units: z.string().optional(),
    periodType: periodType.optional(),
    license: z.string().optional(),
    source: z.string().optional(),
    sourceUrl: z.string().optional(),
    format: artifactFormat,
    zarrVersion: z.union([z.literal(2), z.literal(3)]),
  }),
  start: z.string().optional(),
  end: z.string().optional(),
  overwrite: z.boolean(),
  /** How the thumbnail is coloured (the template's display). */
  display: z
    .object({
      colormap: z.string().optional(),
      range: z.tuple([z.number(), z.number()]).optional(),
      nodata: z.number().optional(),
    })
    .default({}),
  /** The thumbnail the Dataset shows now; kept by the sweep so a failed render leaves it in place. */
  keepThumbnail: z.string().optional(),
  /** Version directories the Dataset still references; every other one under versions/ is removed. */
  keepVersions: z.array(z.string()),
  /**
   * Store path of the committed version the fetched periods are spliced into (a sync, or an ingestion that keeps
   * the stored periods): the new version holds their union.
   */
  base: z.string().optional(),
  /**
   * When the attempt was planned. Given for a split attempt: its parts name the version after it and read the
   * requested range as of then, so that they all write the same version.
   */
  createdAt: z.string().datetime().optional(),
  /** With `base` in an Icechunk dataset: the snapshot of the version the sync continues. */
  baseSnapshot: z.string().optional(),
});

export type IngestionInput = z.infer<typeof ingestionInputSchema>;

export const ingestionResultSchema = z.object({
  datasetId: z.string(),
  version: z.object({
    id: z.string(),
    createdAt: z.string(),
    format: artifactFormat,
    coverage: coverageSchema,
    requestScope: z.object({ start: z.string().nullable(), end: z.string().nullable(), bbox: bbox.nullable() }),
    path: z.string(),
    snapshot: z.string().optional(),
  }),
  /** How the version relates to the previous one it was spliced from, for the dataset.updated event; absent for a full write. */
  action: z.enum(['append', 'rematerialize', 'update']).optional(),
  /** Store path of the thumbnail rendered for this version; absent when rendering failed or had nothing to show. */
  thumbnail: z.string().optional(),
});

export type IngestionResult = z.infer<typeof ingestionResultSchema>;
