import { featureProvider } from './features/available.ts';
import type { RasterProvider } from './raster.ts';
import { chirpsProvider } from './chirps.ts';
import { era5LandProvider } from './era5-land.ts';
import { sampleProvider } from './sample.ts';
import { worldPopProvider } from './worldpop.ts';

/**
 * The provider implementations this build carries, by `DataSource.spec.provider.name`. A DataSource naming any
 * other provider is valid but not ingestable here.
 */
const providers: ReadonlyMap<string, RasterProvider> = new Map(
  [sampleProvider, chirpsProvider, era5LandProvider, worldPopProvider].map((p) => [p.name, p]),
);

export const availableProviders: readonly string[] = [...providers.keys()];

/** Whether this build can fetch a source: raster providers for coverages, feature providers for features. */
export function isProviderAvailable(name: string, itemType: 'coverage' | 'feature' = 'coverage'): boolean {
  return itemType === 'feature' ? featureProvider(name) !== undefined : providers.has(name);
}

export function rasterProvider(name: string): RasterProvider | undefined {
  return providers.get(name);
}
