import { z } from 'zod';
import {
  jobInputSchema,
  processingJobSpecSchema,
  resultExtentSchema,
  resultFileSchema,
  usageSchema,
} from '../../core/resources/processing-job/schema.ts';

/**
 * What the ProcessingJob controller hands a batch job's attempt: the process, and the resources its graph reads as
 * they were when the attempt started (datasets, feature collections, workflows), so the worker needs no access to
 * the cluster and reads the versions that were served then.
 */
export const processingInputSchema = z.object({
  job: z.string().min(1),
  namespace: z.string().min(1),
  /** The attempt's name: its results directory and its log are named after it. */
  attempt: z.string().min(1),
  storageRoot: z.string().min(1),
  process: z.record(z.string(), z.unknown()),
  /** A rerun's pinned dataset versions (the job's `spec.rerun`). */
  rerun: processingJobSpecSchema.shape.rerun,
  resources: z.array(
    z.looseObject({
      apiVersion: z.string(),
      kind: z.string(),
      metadata: z.looseObject({ name: z.string(), namespace: z.string().optional() }),
    }),
  ),
  /** The dataset versions the attempt reads, as the job's `status.inputs` records them: what its provenance lists. */
  inputs: z.array(jobInputSchema),
});

export type ProcessingInput = z.infer<typeof processingInputSchema>;

/**
 * How an attempt that ran its graph to the end reports: the results it wrote, or the openEO error the graph was
 * refused or failed with (a property of the job, not of the worker: no new attempt would change it).
 */
export const processingResultSchema = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('finished'),
    path: z.string(),
    files: z.array(resultFileSchema),
    extent: resultExtentSchema,
    usage: usageSchema,
  }),
  z.object({
    outcome: z.literal('error'),
    error: z.object({ type: z.string(), message: z.string() }),
    usage: usageSchema,
  }),
]);

export type ProcessingResult = z.infer<typeof processingResultSchema>;
