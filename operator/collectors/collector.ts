import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { planCollection, type CollectedKind, type Removal } from '../../core/cluster/expiry.ts';
import { isApiError } from '../../core/cluster/errors.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import type { Leadership } from '../runtime/leadership.ts';

/**
 * A collector of expired objects: every interval, the leader lists each kind, asks the plan which objects
 * expired, and deletes those, each only in the version it listed (an object changed since is looked at again
 * next time). Followers do nothing, so replicas never race to delete.
 */
export interface CollectorOptions {
  cluster: Cluster;
  logger: Logger;
  leadership: Leadership;
  /** The namespaces to sweep; all of them when empty or absent. */
  namespaces?: string[];
  intervalMs: number;
  firstSweepDelayMs: number;
  now?: () => Date;
}

export interface Collector {
  /** One sweep now; resolves with the objects it removed. */
  sweep(): Promise<Removal[]>;
  stop(): Promise<void>;
}

export function startCollector(
  options: CollectorOptions,
  what: { kinds: readonly CollectedKind[]; removed: Counter<'kind'>; name: string },
): Collector {
  const { cluster, logger, leadership } = options;
  const now = options.now ?? (() => new Date());
  const namespaces = options.namespaces?.length ? options.namespaces : [undefined];

  const sweep = async (): Promise<Removal[]> => {
    if (!leadership.isLeader()) return [];
    const removed: Removal[] = [];
    for (const kind of what.kinds) {
      for (const namespace of namespaces) {
        const { items } = await cluster.list(kind.ref, { namespace });
        for (const removal of planCollection(kind, items, now())) {
          try {
            await cluster.delete(kind.ref, removal.name, removal.namespace, {
              resourceVersion: removal.resourceVersion,
            });
            removed.push(removal);
            what.removed.inc({ kind: kind.ref.kind });
          } catch (err) {
            if (!isApiError(err, 'NotFound') && !isApiError(err, 'Conflict')) throw err;
          }
        }
      }
    }
    if (removed.length > 0) logger.info({ removed: removed.length }, `removed expired ${what.name}`);
    return removed;
  };

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      running = sweep()
        .catch((err: unknown) => logger.warn({ err }, `collecting expired ${what.name} failed`))
        .finally(() => {
          if (!stopped) schedule(options.intervalMs);
        });
    }, delayMs);
    timer.unref();
  };
  schedule(options.firstSweepDelayMs);
  return {
    sweep,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** The counter `name` of `registry`, by kind, registered once however often a collector of it starts. */
export function removalCounter(registry: Registry, name: string, help: string): Counter<'kind'> {
  return (
    (registry.getSingleMetric(name) as Counter<'kind'> | undefined) ??
    new Counter({ name, help, labelNames: ['kind'], registers: [registry] })
  );
}
