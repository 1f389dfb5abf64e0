import type { IngestionStatus } from '../../../core/resources/ingestion/schema.ts';
import type { JobState } from '../../jobs/runner.ts';
import { reportedProgress } from '../../runtime/run-lifecycle.ts';
import type { Step } from './transition.ts';

/**
 * The attempt's last report as the run's progress, with its percent; a short attempt may end before a running
 * status was ever written, so the steps that finish a run keep it too.
 */
export function progressOf(job: JobState | undefined, status: IngestionStatus): IngestionStatus['progress'] {
  return reportedProgress(job) ?? status.progress;
}

/** The follow step, while the attempt runs: the run is running, with the attempt's progress. */
export const follow: Step = ({ observed: { job }, status, attempt, run }) => {
  if (job?.phase !== 'running') return undefined;
  return {
    status: {
      set: { phase: 'running', startedAt: status.startedAt ?? job.startedAt, progress: progressOf(job, status) },
      reason: 'Running',
      message: `Attempt ${attempt} of ${run.spec.maxAttempts} running.`,
    },
    outcome: { kind: 'done', reason: 'attempt running' },
  };
};
