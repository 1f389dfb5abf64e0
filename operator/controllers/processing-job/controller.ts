import { referencedResources } from '../../../core/processing/jobs/resolve.ts';
import type { RunOptions } from '../../../core/runs/options.ts';
import { processingJobKind, type ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { planProcessingJob, type ProcessingJobObserved } from './plan.ts';
import { cleanupName } from './steps.ts';

/** Whether the plan may start an attempt, which needs what the graph reads. */
const mayStart = (job: ProcessingJob, observed: { job: unknown }) =>
  (job.status?.phase === 'queued' || job.status?.phase === 'running') &&
  job.spec.queuedAt === job.status.queuedAt &&
  !job.spec.cancelRequested &&
  !job.metadata.deletionTimestamp &&
  observed.job === undefined;

export function processingJobController(
  instance: { storageRoot: string },
  runs?: RunOptions,
): ControllerDefinition<ProcessingJob, ProcessingJobObserved> {
  return {
    name: 'processing-job',
    kind: processingJobKind,
    observe: async (job, cluster, jobs) => {
      const name = job.status?.jobName;
      const state = name ? jobs?.get(name, job.metadata.namespace) : undefined;
      return {
        job: state,
        cleanup: job.metadata.deletionTimestamp ? jobs?.get(cleanupName(job), job.metadata.namespace) : undefined,
        resources: mayStart(job, { job: state })
          ? await referencedResources(
              (job.spec.process as { process_graph?: unknown }).process_graph,
              cluster,
              job.metadata.namespace,
            )
          : [],
        storageRoot: instance.storageRoot,
        ...(runs?.split && { split: runs.split }),
        ...(runs && { backoff: runs.backoff }),
      };
    },
    plan: planProcessingJob,
    runKind: () => 'processing',
  };
}
