import { chunkStatuses, reportOf } from '../../../core/exports/checkpoint.ts';
import type { Delivery, DeliveryStatus } from '../../../core/resources/delivery/schema.ts';
import type { DeliveryContext } from './observed.ts';

/**
 * The status a delivery's decision writes. The checkpoint is what the worker did: the status mirrors its chunks
 * and report whatever the decision; an ended delivery also records its export.delivered event and full progress.
 */
export function deliveryStatus(
  { run: delivery, status, observed, at }: DeliveryContext,
  set: DeliveryStatus | undefined,
): DeliveryStatus {
  const mirrored: DeliveryStatus = observed.checkpoint
    ? { chunks: chunkStatuses(observed.checkpoint), report: reportOf(observed.checkpoint, delivery.spec.dryRun) }
    : {};
  const next: DeliveryStatus = { ...status, ...mirrored, ...set };
  if (set?.phase === 'successful' || set?.phase === 'failed') {
    next.events = deliveredEvent(delivery, next, at);
    next.progress = next.chunks && { done: next.chunks.length, total: next.chunks.length, percent: 100 };
  }
  return next;
}

/** The export.delivered event of a delivery that changed the target (DESIGN.md §4 JobEvents). */
function deliveredEvent(delivery: Delivery, status: DeliveryStatus, at: string): DeliveryStatus['events'] {
  const report = status.report;
  if (delivery.spec.dryRun || !report) return undefined;
  const { imported, updated, deleted } = report.importCount;
  if (imported + updated + deleted === 0) return undefined;
  return [
    {
      type: 'export.delivered',
      source: `/exports/${delivery.spec.exportId}`,
      data: {
        export_id: delivery.spec.exportId,
        delivery_job_id: delivery.metadata.name,
        ...(delivery.spec.jobId !== undefined && { job_id: delivery.spec.jobId }),
        ...(delivery.spec.table && { table: delivery.spec.table.name, table_version: delivery.spec.table.version.id }),
        imported,
        updated,
        deleted,
      },
      eventID: `${delivery.metadata.name}:1`,
      time: at,
    },
  ];
}
