/**
 * A ProcessingJob as openEO's batch job record (`GET /jobs/{id}`), the same in every API server: its status is the
 * controller's, except that a run asked for and not yet taken up by the controller is already `queued`.
 */
import type { ProcessingJob, ProcessingJobPhase } from '../../resources/processing-job/schema.ts';

export function phaseOf(job: ProcessingJob): ProcessingJobPhase {
  const { queuedAt } = job.spec;
  if (queuedAt !== undefined && queuedAt !== job.status?.queuedAt) return 'queued';
  return job.status?.phase ?? 'created';
}

/** Whether the job's run is queued or running: it cannot be changed or deleted then. */
export const isLocked = (job: ProcessingJob) => ['queued', 'running'].includes(phaseOf(job));

/** openEO's usage object: what the last run used, each with its unit. */
export function usageOf(job: ProcessingJob): Record<string, { value: number; unit: string }> | undefined {
  const usage = job.status?.usage;
  if (!usage) return undefined;
  return {
    duration: { value: usage.durationSeconds, unit: 'seconds' },
    cpu: { value: usage.cpuSeconds, unit: 'cpu-seconds' },
    memory: { value: usage.peakMemoryMb, unit: 'mb' },
  };
}

/** The record without its process (as `GET /jobs` lists jobs), or with it. */
export function jobRecord(job: ProcessingJob, withProcess: boolean): Record<string, unknown> {
  const { spec, status, metadata } = job;
  const phase = phaseOf(job);
  const usage = usageOf(job);
  const progress = phase === 'finished' ? 100 : phase === 'running' ? (status?.progress?.percent ?? 0) : undefined;
  return {
    id: metadata.name,
    ...(spec.title !== undefined && { title: spec.title }),
    ...(spec.description !== undefined && { description: spec.description }),
    ...(withProcess && { process: spec.process }),
    status: phase,
    ...(progress !== undefined && { progress }),
    created: metadata.creationTimestamp,
    ...(status?.updatedAt && { updated: status.updatedAt }),
    plan: spec.plan ?? null,
    costs: null,
    budget: spec.budget ?? null,
    ...(usage && { usage }),
  };
}
