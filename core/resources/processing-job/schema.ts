import { z } from 'zod';
import { dateTime, freeForm, runStatusFields, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';
import { processingJobConditions } from './conditions.ts';

export const processingJobPhases = ['created', 'queued', 'running', 'finished', 'error', 'canceled'] as const;
export type ProcessingJobPhase = (typeof processingJobPhases)[number];

export const processingJobSpecSchema = z
  .object({
    title: z.string().optional().describe('Title of the job.'),
    description: z.string().optional().describe('Description (CommonMark).'),
    process: freeForm('The openEO process: `process_graph` with optional metadata.'),
    plan: z.string().optional().describe('Billing plan.'),
    budget: z.number().min(0).optional().describe('Maximum cost.'),
    queuedAt: dateTime
      .optional()
      .describe(
        'When the job was last asked to run (POST /jobs/{id}/results sets it to now). The job runs once per ' +
          'value: a later value runs it again and replaces its results.',
      ),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(1)
      .describe(
        'Attempts a run may take when its worker fails (crashed, killed, timed out), with backoff min(240, 60*2^(n-1)) s; a graph that fails is not retried.',
      ),
    cancelRequested: z
      .boolean()
      .default(false)
      .describe('Cancels the run asked for at `queuedAt` while it is queued or running.'),
    rerun: z
      .object({
        of: z.string().min(1).describe('The finished job this one reruns (`POST /jobs/{id}/rerun`).'),
        datasetVersions: z
          .record(z.string(), z.string())
          .describe('The version each dataset is read at: the versions the original run read, by dataset id.'),
      })
      .optional()
      .describe('A rerun reads its datasets at these versions instead of the ones served when it runs.'),
  })
  .describe('An openEO batch job.');

export const resultFileSchema = z
  .object({
    name: z.string().describe('File name under /jobs/{id}/results/ (a directory for Zarr).'),
    mediaType: z.string().describe('Media type of the file.'),
    size: z.number().int().min(0).optional().describe('Bytes (all files, for a directory).'),
    directory: z.boolean().optional().describe('A directory of files (a Zarr store).'),
  })
  .describe('One result of a run.');

export const resultExtentSchema = z
  .object({
    bbox: z.array(z.number()).length(4).optional().describe('WGS84 bounding box: west, south, east, north.'),
    start: dateTime.optional().describe('First instant of the temporal labels.'),
    end: dateTime.optional().describe('Last instant of the temporal labels.'),
  })
  .describe('Where and when the results are, for their STAC Item.');

export const usageSchema = z
  .object({
    durationSeconds: z.number().min(0).describe('Wall time of the attempt.'),
    cpuSeconds: z.number().min(0).describe('CPU time (user and system) of the worker.'),
    peakMemoryMb: z.number().min(0).describe('Peak resident memory of the worker.'),
  })
  .describe('What the run used.');

export const jobInputSchema = z
  .object({
    dataset: z.string().describe('Dataset id (the collection id of `load_collection`).'),
    version: z.string().describe('Id of the dataset version the run reads (`/datasets/{dataset}` lists it).'),
  })
  .describe('A dataset version a run reads.');

export const processingJobStatusSchema = z
  .object({
    ...statusBase,
    phase: z.enum(processingJobPhases).optional().describe('openEO job status.'),
    queuedAt: dateTime.optional().describe('The `spec.queuedAt` of the run this status describes.'),
    attempt: runStatusFields.attempt.describe('Current or last attempt, from 1, counted across runs.'),
    runFirstAttempt: z.number().int().min(1).optional().describe('The first attempt of the current run.'),
    retryAfter: runStatusFields.retryAfter,
    jobName: runStatusFields.jobName,
    progress: runStatusFields.progress,
    startedAt: runStatusFields.startedAt,
    finishedAt: runStatusFields.finishedAt,
    updatedAt: dateTime.optional().describe('Last change of phase or progress.'),
    results: z
      .object({
        path: z.string().describe('Store path of the run directory.'),
        files: z.array(resultFileSchema),
        extent: resultExtentSchema.optional(),
      })
      .optional()
      .describe('Results of the finished run.'),
    usage: usageSchema.optional(),
    inputs: z
      .array(jobInputSchema)
      .optional()
      .describe(
        'The dataset versions the current run reads, recorded when its attempt starts: those its `load_collection` ' +
          'calls name, else the served ones. They stay retained until the run ends.',
      ),
    error: runStatusFields.error,
    worker: runStatusFields.worker,
  })
  .describe('Observed state of the job.');

export const { kind: processingJobKind, schema: processingJobSchema } = defineKind({
  kind: 'ProcessingJob',
  plural: 'processingjobs',
  shortNames: ['spj'],
  description: 'An openEO batch job: a process graph run by the worker, with result files.',
  spec: processingJobSpecSchema,
  status: processingJobStatusSchema,
  conditions: processingJobConditions,
  columns: [
    { name: 'Title', type: 'string', jsonPath: '.spec.title' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Finished', type: 'date', jsonPath: '.status.finishedAt' },
  ],
});

export type ProcessingJob = z.infer<typeof processingJobSchema>;
export type ProcessingJobStatus = NonNullable<ProcessingJob['status']>;
export type ResultFile = z.infer<typeof resultFileSchema>;
export type ResultExtent = z.infer<typeof resultExtentSchema>;
export type Usage = z.infer<typeof usageSchema>;
export type JobInput = z.infer<typeof jobInputSchema>;
