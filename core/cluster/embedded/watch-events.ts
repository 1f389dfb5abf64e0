import { matchesLabels, type parseLabelSelector } from '../label-selector.ts';
import type { KubeObject } from '../objects.ts';
import type { WatchEvent } from '../port.ts';

/** What watchers of the embedded cluster see of each change, filtered by namespace and labels as the API server does. */

/**
 * A change as retained for watches. When it changed the labels, the object as it was before goes with it: a
 * filtered watcher that stops matching sees that object leave, as the API server shows it.
 */
export interface HistoryEntry {
  rv: number;
  event: WatchEvent;
  relabelled?: KubeObject;
}

export type WatchFilter = { namespace?: string; selector: ReturnType<typeof parseLabelSelector> };

export function matchesFilter(object: KubeObject, filter: WatchFilter): boolean {
  return (
    (filter.namespace === undefined || object.metadata.namespace === filter.namespace) &&
    matchesLabels(filter.selector, object.metadata.labels)
  );
}

/**
 * What a filtered watcher sees of a change, as on the API server: an object whose labels start matching
 * arrives as ADDED; one whose labels stop matching leaves as DELETED, carrying the object as it last matched
 * (with the change's resourceVersion, so that a watch resumed from it misses nothing).
 */
export function eventFor(entry: HistoryEntry, filter: WatchFilter): WatchEvent | undefined {
  const { event } = entry;
  const now = matchesFilter(event.object, filter);
  if (event.type !== 'MODIFIED') return now ? structuredClone(event) : undefined;
  const previous = entry.relabelled ?? event.object;
  const before = matchesFilter(previous, filter);
  if (now && before) return structuredClone(event);
  if (now) return { type: 'ADDED', object: structuredClone(event.object) };
  if (!before) return undefined;
  const left = structuredClone(previous);
  left.metadata.resourceVersion = event.object.metadata.resourceVersion;
  return { type: 'DELETED', object: left };
}
