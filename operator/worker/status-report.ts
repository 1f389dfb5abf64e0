import type { Cluster } from '../../core/cluster/port.ts';
import type { FromWorker, Part, ReportTarget, WorkerReport } from './protocol.ts';

export const WORKER_FIELD_MANAGER = 'stratus-worker';
const ATTEMPTS = 5;

/**
 * The merge patch that makes `status.worker` exactly this report, or for a part of a split attempt
 * `status.worker.parts.<index>`: members the report lacks are sent as null, which a merge patch removes, so nothing
 * of an earlier attempt's report survives. A part's patch leaves the other parts' reports alone.
 */
export function reportPatch(report: WorkerReport, part?: Part): Record<string, unknown> {
  const progress = report.progress && { ...report.progress, message: report.progress.message ?? null };
  const whole = { job: report.job, at: report.at, progress: progress ?? null, end: report.end ?? null };
  const worker = part ? { parts: { [part.index]: { ...whole, count: part.count } } } : whole;
  return { status: { worker } };
}

/**
 * Reports a worker's messages into its run's status (Kubernetes Job mode). Writes go one at a time; a write that
 * a newer message overtook while it waited is skipped, so a burst of progress costs one request. `flushed` settles
 * once the latest message is written (or its retries are exhausted: the runner then sees the pod's end alone).
 */
export function statusReporter(
  cluster: Cluster,
  target: ReportTarget,
  now: () => Date = () => new Date(),
  retryMs = 1_000,
): { report(message: FromWorker): void; flushed(): Promise<void> } {
  let latest: WorkerReport = { job: target.job, at: now().toISOString() };
  let version = 0;
  let chain: Promise<void> = Promise.resolve();
  const write = async (mine: number) => {
    for (let attempt = 1; attempt <= ATTEMPTS && mine === version; attempt++) {
      try {
        await cluster.patchStatus(
          target.kind,
          target.name,
          { type: 'merge', body: reportPatch(latest, target.part) },
          target.namespace,
          {
            fieldManager: WORKER_FIELD_MANAGER,
          },
        );
        return;
      } catch (err) {
        console.error(`reporting to ${target.kind.kind} ${target.name} failed (attempt ${attempt}): ${String(err)}`);
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    }
  };
  return {
    report(message) {
      const at = now().toISOString();
      if (message.type === 'progress') {
        const progress = { done: message.done, total: message.total, message: message.message };
        latest = { ...latest, at, progress };
      } else latest = { ...latest, at, end: message };
      const mine = ++version;
      chain = chain.then(() => write(mine));
    },
    flushed: () => chain,
  };
}
