import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { COLLECTED_KINDS, planCollection, type Removal } from '../../core/auth/records/expiry.ts';
import { isApiError } from '../../core/cluster/errors.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import type { Leadership } from '../runtime/leadership.ts';

/**
 * The collector of the authorization server's expired records (authorizations, sessions, used client assertions,
 * IATs): every interval, the leader lists each kind, asks the planner which records expired, and deletes those,
 * each only in the version it listed (a record changed since is looked at again next time). Followers do
 * nothing, so replicas never race to delete.
 */
export const COLLECTION_INTERVAL_MS = 5 * 60_000;
/** The first sweep waits a little, so that it does not add to the work of starting. */
export const FIRST_SWEEP_DELAY_MS = 30_000;

export interface RecordCollectorOptions {
  cluster: Cluster;
  logger: Logger;
  leadership: Leadership;
  registry: Registry;
  /** The namespaces to sweep; all of them when empty or absent. */
  namespaces?: string[];
  intervalMs?: number;
  firstSweepDelayMs?: number;
  now?: () => Date;
}

export interface RecordCollector {
  /** One sweep now; resolves with the records it removed. */
  sweep(): Promise<Removal[]>;
  stop(): Promise<void>;
}

export function startRecordCollector(options: RecordCollectorOptions): RecordCollector {
  const { cluster, logger, leadership } = options;
  const now = options.now ?? (() => new Date());
  const collected =
    (options.registry.getSingleMetric('stratus_auth_records_collected_total') as Counter<'kind'> | undefined) ??
    new Counter({
      name: 'stratus_auth_records_collected_total',
      help: 'Expired records of the authorization server removed by the collector, by kind.',
      labelNames: ['kind'],
      registers: [options.registry],
    });
  const namespaces = options.namespaces?.length ? options.namespaces : [undefined];

  const sweep = async (): Promise<Removal[]> => {
    if (!leadership.isLeader()) return [];
    const removed: Removal[] = [];
    for (const kind of COLLECTED_KINDS) {
      for (const namespace of namespaces) {
        const { items } = await cluster.list(kind.ref, { namespace });
        for (const removal of planCollection(kind, items, now())) {
          try {
            await cluster.delete(kind.ref, removal.name, removal.namespace, {
              resourceVersion: removal.resourceVersion,
            });
            removed.push(removal);
            collected.inc({ kind: kind.ref.kind });
          } catch (err) {
            if (!isApiError(err, 'NotFound') && !isApiError(err, 'Conflict')) throw err;
          }
        }
      }
    }
    if (removed.length > 0) logger.info({ removed: removed.length }, 'removed expired authorization records');
    return removed;
  };

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      running = sweep()
        .catch((err: unknown) => logger.warn({ err }, 'collecting expired authorization records failed'))
        .finally(() => {
          if (!stopped) schedule(options.intervalMs ?? COLLECTION_INTERVAL_MS);
        });
    }, delayMs);
    timer.unref();
  };
  schedule(options.firstSweepDelayMs ?? FIRST_SWEEP_DELAY_MS);
  return {
    sweep,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
