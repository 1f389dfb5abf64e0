import { eventKind } from '../../core/cluster/builtin-kinds.ts';
import type { CollectedKind } from '../../core/cluster/expiry.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { COLLECTION_INTERVAL_MS, FIRST_SWEEP_DELAY_MS, type AuthStoreCollectorOptions } from './auth-store.ts';
import { removalCounter, startCollector, type Collector } from './collector.ts';

/**
 * How long an Event is kept after it was last seen: a Kubernetes API server's default (`--event-ttl`), which the
 * embedded store has no server to apply, so without this collector Events would pile up with every run.
 */
export const EVENT_TTL_MS = 60 * 60_000;

const events: CollectedKind = {
  ref: eventKind,
  expiry: (event: KubeObject) => {
    const seen =
      (event.series as { lastObservedTime?: string } | undefined)?.lastObservedTime ??
      (event.eventTime as string | undefined);
    return seen ? new Date(new Date(seen).getTime() + EVENT_TTL_MS) : undefined;
  },
};

/** The collector of Events older than `EVENT_TTL_MS`, for embedded mode. */
export function startEventCollector(options: AuthStoreCollectorOptions): Collector {
  return startCollector(
    { intervalMs: COLLECTION_INTERVAL_MS, firstSweepDelayMs: FIRST_SWEEP_DELAY_MS, ...options },
    {
      kinds: [events],
      name: 'events',
      removed: removalCounter(
        options.registry,
        'stratus_events_collected_total',
        'Events past their time to live removed by the embedded collector.',
      ),
    },
  );
}
