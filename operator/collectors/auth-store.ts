import type { Registry } from 'prom-client';
import { COLLECTED_KINDS } from '../../core/auth/store/expiry.ts';
import { removalCounter, startCollector, type Collector, type CollectorOptions } from './collector.ts';

/** The collector of the authorization server's expired objects (authorizations, sessions, used client assertions,
 * IATs). */
export const COLLECTION_INTERVAL_MS = 5 * 60_000;
/** The first sweep waits a little, so that it does not add to the work of starting. */
export const FIRST_SWEEP_DELAY_MS = 30_000;

export type AuthStoreCollectorOptions = Omit<CollectorOptions, 'intervalMs' | 'firstSweepDelayMs'> &
  Partial<Pick<CollectorOptions, 'intervalMs' | 'firstSweepDelayMs'>> & { registry: Registry };

export function startAuthStoreCollector(options: AuthStoreCollectorOptions): Collector {
  return startCollector(
    { intervalMs: COLLECTION_INTERVAL_MS, firstSweepDelayMs: FIRST_SWEEP_DELAY_MS, ...options },
    {
      kinds: COLLECTED_KINDS,
      name: 'authorization records',
      removed: removalCounter(
        options.registry,
        'stratus_auth_records_collected_total',
        'Expired records of the authorization server removed by the collector, by kind.',
      ),
    },
  );
}
