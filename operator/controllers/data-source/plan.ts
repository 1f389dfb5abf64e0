import { isProviderAvailable } from '../../../core/providers/available.ts';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import { dataSourceConditions } from '../../../core/resources/data-source/conditions.ts';
import type { Plan } from '../../runtime/actions.ts';
import { eventOf, readinessConditions, readinessOf } from '../../runtime/readiness.ts';

export interface DataSourceObserved {
  providerAvailable: boolean;
}

export function observeDataSource(source: DataSource): DataSourceObserved {
  return { providerAvailable: isProviderAvailable(source.spec.provider.name, source.spec.itemType) };
}

/** A data source is Ready when this instance can fetch it; otherwise it is Stalled until a provider exists. */
export function planDataSource(source: DataSource, observed: DataSourceObserved, now: Date): Plan {
  const provider = source.spec.provider.name;
  const generation = source.metadata.generation as number | undefined;
  const conditions = readinessConditions(
    source.status?.conditions,
    observed.providerAvailable
      ? readinessOf(dataSourceConditions, 'ProviderAvailable', `Provider ${provider} can fetch this source.`)
      : readinessOf(
          dataSourceConditions,
          'ProviderUnavailable',
          `No provider named ${provider} on this instance; the source cannot be ingested here.`,
        ),
    generation,
    now,
  );
  const status = { ...source.status, ingestable: observed.providerAvailable, conditions };
  const changed = source.status?.ingestable !== observed.providerAvailable;
  return {
    actions: [
      { kind: 'patchStatus', status },
      ...(changed && !observed.providerAvailable
        ? [eventOf(dataSourceConditions, 'ProviderUnavailable', conditions[0]!.message)]
        : []),
    ],
    outcome: { kind: 'done', reason: observed.providerAvailable ? 'ingestable' : 'no provider' },
  };
}
