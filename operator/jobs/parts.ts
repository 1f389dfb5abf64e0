import type { EndMessage, PartReport, WorkerReport } from '../worker/protocol.ts';
import type { JobState } from './runner.ts';

/** The end of an attempt as a `JobState` says it, from the message that ended it. */
export function endedState(end: EndMessage): Pick<JobState, 'phase' | 'result' | 'error'> {
  if (end.type === 'result') return { phase: 'succeeded', result: end.value };
  if (end.type === 'error') return { phase: 'failed', error: { type: end.errorType, message: end.message } };
  return { phase: 'cancelled' };
}

/**
 * The report of a split attempt from the reports of its parts, as if one worker had done all of it.
 * - Progress: every part counts its own periods against the attempt's total, so the sum is the attempt's.
 * - End: the first part that failed fails the attempt (the others are stopped); a cancelled part cancels it;
 *   it succeeds once every part did, with the result of the part that finished the whole (the others return
 *   none).
 */
export function combinedReport(job: string, parts: ReadonlyMap<number, PartReport>): WorkerReport | undefined {
  const reports = [...parts.entries()].sort(([a], [b]) => a - b).map(([, report]) => report);
  if (reports.length === 0) return undefined;
  const count = Math.max(...reports.map((r) => r.count));
  const at = reports.map((r) => r.at).reduce((a, b) => (a > b ? a : b));
  const progressing = reports.filter((r) => r.progress);
  const latest = progressing.reduce<PartReport | undefined>((a, b) => (!a || b.at >= a.at ? b : a), undefined);
  const progress = latest?.progress && {
    done: progressing.reduce((sum, r) => sum + r.progress!.done, 0),
    total: Math.max(...progressing.map((r) => r.progress!.total)),
    ...(latest.progress.message !== undefined && { message: latest.progress.message }),
  };
  const ends = reports.flatMap((r) => (r.end ? [r.end] : []));
  const end =
    ends.find((e) => e.type === 'error') ??
    ends.find((e) => e.type === 'cancelled') ??
    (ends.length === count && parts.size === count
      ? {
          type: 'result' as const,
          value: ends.map((e) => (e.type === 'result' ? e.value : null)).find((v) => v != null) ?? null,
        }
      : undefined);
  return { job, at, ...(progress && { progress }), ...(end && { end }) };
}
