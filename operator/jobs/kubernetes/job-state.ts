import { partReportsSchema, workerReportSchema, type PartReport, type WorkerReport } from '../../worker/protocol.ts';
import { combinedReport, endedState } from '../parts.ts';
import type { JobState } from '../runner.ts';
import type { BatchJob } from './job-manifest.ts';

/** What the runner knows of one attempt: its Job as last watched and the worker's latest report. */
export interface AttemptObservation {
  name: string;
  /** When the runner asked for the Job; the Job's own start time wins once there is one. */
  requestedAt: string;
  job: BatchJob | undefined;
  /** Only a report of this attempt (`report.job === name`). */
  report: WorkerReport | undefined;
  cancelRequested: boolean;
  /** Why the pods say the worker ended, read once its Job failed without a report (an OOM kill, say). */
  podEnd?: string | undefined;
}

function failedCondition(job: BatchJob | undefined) {
  return job?.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
}

/**
 * The attempt's `JobState`: the worker's report says how it ended; the Job's status speaks only when the worker
 * could not (deadline exceeded, pod killed). A Job that completed without a report stays running here: the report
 * may still be on its way through the other watch, and the runner re-reads the run before it concludes.
 */
export function jobStateOf(attempt: AttemptObservation): JobState {
  const { name, job, report } = attempt;
  const startedAt = job?.status?.startTime ?? job?.metadata.creationTimestamp ?? attempt.requestedAt;
  const progress = report?.progress && {
    done: report.progress.done,
    total: report.progress.total,
    ...(report.progress.message !== undefined && { message: report.progress.message }),
  };
  const base: JobState = { name, phase: 'running', startedAt, ...(progress && { progress }) };
  if (report?.end) return { ...base, ...endedState(report.end), finishedAt: report.at };
  const failed = failedCondition(job);
  if (failed || (attempt.cancelRequested && !job)) {
    const finishedAt = failed?.lastTransitionTime ?? report?.at ?? startedAt;
    if (attempt.cancelRequested) return { ...base, phase: 'cancelled', finishedAt };
    const type = failed?.reason === 'DeadlineExceeded' ? 'DeadlineExceeded' : 'WorkerCrashed';
    const message =
      (type === 'WorkerCrashed' && attempt.podEnd) || failed?.message || 'the worker pod failed without reporting';
    return { ...base, phase: 'failed', finishedAt, error: { type, message } };
  }
  return base;
}

/** Whether the Job's pod succeeded (the worker exited 0, so it reported its end). */
export function jobSucceeded(job: BatchJob): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');
}

/** Whether the Job failed (its pod failed, or its deadline passed). */
export function jobFailed(job: BatchJob): boolean {
  return failedCondition(job) !== undefined;
}

/**
 * The attempts' reports in a run's `status.worker`: the report of an attempt in one worker, and each split attempt's
 * parts combined into one report. Parts of an earlier attempt may linger beside the current one's, told apart by
 * their `job`.
 */
export function reportsOf(worker: unknown): WorkerReport[] {
  const reports: WorkerReport[] = [];
  const whole = workerReportSchema.safeParse(worker);
  if (whole.success) reports.push(whole.data);
  const parts = partReportsSchema.safeParse((worker as { parts?: unknown } | undefined)?.parts);
  if (!parts.success) return reports;
  const byAttempt = new Map<string, Map<number, PartReport>>();
  for (const [index, report] of Object.entries(parts.data)) {
    const attempt = byAttempt.get(report.job) ?? new Map<number, PartReport>();
    attempt.set(Number(index), report);
    byAttempt.set(report.job, attempt);
  }
  for (const [job, attempt] of byAttempt) reports.push(combinedReport(job, attempt)!);
  return reports;
}
