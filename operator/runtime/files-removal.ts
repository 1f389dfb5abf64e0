/**
 * The end of a run resource that owns files in the store (a batch job's results, a delivery's checkpoint): once it
 * is deleted, its running attempt is cancelled, then a worker removes the files (the operator's pod mounts the store
 * read-only), then its finalizer goes. Files the worker could not remove do not hold the resource forever: the caller
 * records `filesLeft` as a Warning Event.
 */
import type { JobSpec, JobState } from '../jobs/runner.ts';
import type { Action, Outcome } from './actions.ts';

export interface FilesRemoval {
  /** The run's attempt, when it still runs: cancelled first. */
  running: string | undefined;
  /** The removal worker, once started. */
  cleanup: JobState | undefined;
  /** The removal worker's job. */
  job: Omit<JobSpec, 'owner'>;
  finalizer: string;
  /** What stays where, for the Event when the removal failed (`why` says why). */
  left: (why: string) => string;
}

export function removeFilesThenRelease(removal: FilesRemoval): {
  actions?: Action[];
  outcome: Outcome;
  filesLeft?: string;
} {
  if (removal.running)
    return {
      actions: [{ kind: 'cancelJob', name: removal.running }],
      outcome: { kind: 'requeueAfter', ms: 1_000, reason: 'cancelling the attempt of a deleted run' },
    };
  const { cleanup } = removal;
  if (!cleanup)
    return {
      actions: [{ kind: 'startJob', job: removal.job }],
      outcome: { kind: 'done', reason: 'removing the files' },
    };
  if (cleanup.phase === 'running') return { outcome: { kind: 'done', reason: 'removing the files' } };
  const actions: Action[] = [{ kind: 'removeFinalizer', name: removal.finalizer }];
  if (cleanup.phase === 'succeeded') return { actions, outcome: { kind: 'done', reason: 'deleted' } };
  return {
    actions,
    filesLeft: removal.left(cleanup.error?.message ?? cleanup.phase),
    outcome: { kind: 'done', reason: 'deleted, files left' },
  };
}
