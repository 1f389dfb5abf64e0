/**
 * Which versions of an AnalyticsTable a build keeps besides the newest `spec.tableHistoryLimit`: those unfinished
 * deliveries read (`spec.table.version`), since a delivery reads its version when its attempt prepares the payload,
 * which may be after newer versions were published (it waited its turn, or a retry starts over).
 */
import type { Delivery } from '../delivery/schema.ts';
import { isUnfinishedDelivery } from '../delivery/unfinished.ts';

export function deliveredTableVersions(table: string, deliveries: readonly Delivery[]): string[] {
  const ids = deliveries.flatMap((d) =>
    d.spec.table?.name === table && isUnfinishedDelivery(d) ? [d.spec.table.version.id] : [],
  );
  return [...new Set(ids)];
}
