import type { PeriodType } from '../periods/index.ts';
import { AvailabilityError, latestAvailable, resolveAvailability } from '../providers/availability.ts';
import { rasterProvider } from '../providers/available.ts';
import type { DataSource } from '../resources/data-source/schema.ts';

export type SourceAvailability =
  | { ok: true; latest: string }
  | { ok: false; reason: 'provider_unavailable' | 'invalid_availability_rule'; message: string };

/** The newest period `source` offers at `now`: its provider's rule with the template's overrides. */
export function sourceAvailability(source: DataSource, type: PeriodType, now: Date): SourceAvailability {
  const provider = rasterProvider(source.spec.provider.name);
  if (!provider)
    return {
      ok: false,
      reason: 'provider_unavailable',
      message: `This instance has no provider named ${source.spec.provider.name}.`,
    };
  try {
    const rule = resolveAvailability(
      provider.availability(source.spec.provider.parameters ?? {}),
      source.spec.sync?.availability,
    );
    return { ok: true, latest: latestAvailable(type, rule, now) };
  } catch (err) {
    if (!(err instanceof AvailabilityError)) throw err;
    return { ok: false, reason: 'invalid_availability_rule', message: `${source.metadata.name}: ${err.message}` };
  }
}
