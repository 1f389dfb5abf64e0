/**
 * The lifecycle of a ProcessingJob (openEO's batch job statuses, docs/processing.md#batch-jobs), as an adapter of
 * the run lifecycle (operator/runtime/run-lifecycle.ts); its steps are in steps.ts:
 *
 *   created --queuedAt--> queued --attempt runs--> running --> finished | error
 *   queued | running --cancelRequested--> canceled
 *   finished | error | canceled --a later queuedAt--> queued (the previous results go)
 */
import { processingJobConditions } from '../../../core/resources/processing-job/conditions.ts';
import type { ProcessingJob, ProcessingJobStatus } from '../../../core/resources/processing-job/schema.ts';
import type { Plan } from '../../runtime/actions.ts';
import { planRun, type RunLifecycle } from '../../runtime/run-lifecycle.ts';
import {
  cancel,
  deleted,
  finish,
  finished,
  follow,
  RESULTS_FINALIZER,
  retry,
  start,
  type JobContext,
  type ProcessingJobObserved,
} from './steps.ts';

export { RESULTS_FINALIZER, type ProcessingJobObserved } from './steps.ts';

const processingJobLifecycle: RunLifecycle<
  JobContext,
  JobContext,
  typeof processingJobConditions,
  ProcessingJobStatus
> = {
  catalogue: processingJobConditions,
  finalizer: RESULTS_FINALIZER,
  // Every write says when the job last changed (openEO's `updated`).
  nextStatus: ({ status, at }, set) => set && { ...status, ...set, updatedAt: at },
  deleted,
  finished,
  cancel,
  steps: [start, follow, finish, retry],
};

export function planProcessingJob(job: ProcessingJob, observed: ProcessingJobObserved, now: Date): Plan {
  return planRun(processingJobLifecycle, { run: job, observed, now, at: now.toISOString(), status: job.status ?? {} });
}
