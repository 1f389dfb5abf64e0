import { z } from 'zod';
import type { KindRef } from '../../core/cluster/objects.ts';
import { runErrorCodeSchema } from '../../core/runs/errors.ts';

/** Messages between the job runner and a worker process (IPC in embedded mode, JSON lines on stdout in a Job). */
export type ToWorker = { type: 'start'; task: string; input: unknown } | { type: 'cancel' };

const progressMessage = z.object({
  type: z.literal('progress'),
  done: z.number(),
  total: z.number(),
  message: z.string().optional(),
});

/** The messages that end an attempt; exactly one is sent, last. */
const endMessage = z.discriminatedUnion('type', [
  // A task that returns nothing (a part that did not complete its attempt) reports null, which a merge patch of
  // the run's status drops: the value may be absent.
  z.object({ type: z.literal('result'), value: z.unknown().optional() }),
  z.object({ type: z.literal('error'), errorType: runErrorCodeSchema, message: z.string() }),
  z.object({ type: z.literal('cancelled') }),
]);

export type ProgressMessage = z.infer<typeof progressMessage>;
export type EndMessage = z.infer<typeof endMessage>;
export type FromWorker = ProgressMessage | EndMessage;

/**
 * What a worker in a Kubernetes Job writes into its run's `status.worker`: its attempt's latest progress and, once
 * over, how it ended. The Kubernetes job runner reads it back into the same `JobState` the IPC messages make.
 */
export const workerReportSchema = z.object({
  /** The attempt (Job name) that wrote it: a report of an earlier attempt says nothing of the current one. */
  job: z.string(),
  at: z.string(),
  progress: progressMessage.omit({ type: true }).optional(),
  end: endMessage.optional(),
});

export type WorkerReport = z.infer<typeof workerReportSchema>;

/**
 * The report of one part of a split attempt, under `status.worker.parts.<index>`: parts write concurrently, and a
 * merge patch of one index leaves the others alone. `count` says how many parts the attempt has.
 */
export const partReportSchema = workerReportSchema.extend({ count: z.number().int().min(1) });

export type PartReport = z.infer<typeof partReportSchema>;

/** The reports of split attempts' parts, by index (`status.worker.parts`). */
export const partReportsSchema = z.record(z.string().regex(/^\d+$/), partReportSchema);

/**
 * How a worker learns it is one part of a split attempt: its index under the name the Job controller gives it in
 * an Indexed Job's pods (the embedded runner sets the same), and the number of parts, set by the runner.
 */
export const PART_INDEX_ENV = 'JOB_COMPLETION_INDEX';
export const PART_COUNT_ENV = 'STRATUS_WORKER_PARTS';

export interface Part {
  index: number;
  count: number;
}

/** Where a worker in a Job reports (JSON in `STRATUS_WORKER_REPORT_TO`): its run resource and its attempt. */
export interface ReportTarget {
  kind: KindRef;
  name: string;
  namespace?: string;
  job: string;
  /** A part of a split attempt reports under `status.worker.parts`; the worker adds it from its environment. */
  part?: Part;
}

export const REPORT_TO_ENV = 'STRATUS_WORKER_REPORT_TO';

export interface TaskContext {
  signal: AbortSignal;
  /** Throws `Cancelled` when cancellation was requested; call it between units of work. */
  throwIfCancelled(): void;
  progress(done: number, total: number, message?: string): void;
  /** Which part of a split attempt this worker does; absent when the attempt is not split. */
  part?: Part;
}

export type Task = (input: unknown, context: TaskContext) => Promise<unknown>;

export class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
  }
}
