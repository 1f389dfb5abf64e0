import type { Logger } from 'pino';
import { isApiError } from './errors.ts';
import type { KindRef, KubeObject } from './objects.ts';
import type { Cluster, WatchEvent } from './port.ts';

export interface InformerOptions<T extends KubeObject> {
  cluster: Cluster;
  kind: KindRef;
  namespace?: string;
  labelSelector?: string;
  logger: Logger;
  signal: AbortSignal;
  /** The whole current state, first and after every relist: the receiver replaces what it holds. */
  onList(items: T[]): void;
  onEvent(event: WatchEvent<T>): void;
  /** Delay before re-establishing a failed watch. */
  rewatchMs?: number;
}

/** A watch that ends sooner than this without an event is re-established after the rewatch delay, not at once. */
const SHORT_WATCH_MS = 1_000;

/**
 * Keeps a receiver's picture of one kind current: lists, then watches from the list's resourceVersion; resumes a
 * dropped watch from the last version seen and relists when that version left the server's history (410 Gone).
 * Resolves `synced` after the first list; the loop runs until the signal aborts.
 */
export function inform<T extends KubeObject>(
  options: InformerOptions<T>,
): { synced: Promise<void>; done: Promise<void> } {
  const { cluster, kind, namespace, labelSelector, logger, signal } = options;
  let markSynced: () => void = () => {};
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  const done = (async () => {
    let resourceVersion: string | undefined;
    while (!signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          const list = await cluster.list<T>(kind, { namespace, labelSelector });
          options.onList(list.items);
          resourceVersion = list.resourceVersion;
          markSynced();
        }
        const started = Date.now();
        let events = 0;
        for await (const event of cluster.watch<T>(kind, { namespace, labelSelector, resourceVersion, signal })) {
          resourceVersion = event.object.metadata.resourceVersion;
          events++;
          options.onEvent(event);
        }
        // A server ends an idle watch after minutes; one that ends at once with nothing (a closed cluster, a proxy
        // cutting every watch) would otherwise be re-opened in a loop of promises that never lets I/O run.
        if (events > 0 || Date.now() - started >= SHORT_WATCH_MS) continue;
        if (!signal.aborted) logger.warn({ kind: kind.kind }, 'watch ended at once without events; re-establishing');
      } catch (err) {
        if (isApiError(err, 'Gone')) {
          resourceVersion = undefined;
          continue;
        }
        if (!signal.aborted) logger.warn({ err, kind: kind.kind }, 'informer failed; re-establishing');
      }
      if (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, options.rewatchMs ?? 1_000));
    }
  })();
  return { synced, done };
}
