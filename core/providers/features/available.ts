import { dhis2FeatureProvider } from './dhis2.ts';
import type { FeatureProvider } from './provider.ts';
import { sampleFeatureProvider } from './sample.ts';
import { urlFeatureProvider } from './url.ts';

/** The feature providers this build carries, by `DataSource.spec.provider.name` of a source of itemType feature. */
const providers: ReadonlyMap<string, FeatureProvider> = new Map(
  [sampleFeatureProvider, urlFeatureProvider, dhis2FeatureProvider].map((p) => [p.name, p]),
);

export function featureProvider(name: string): FeatureProvider | undefined {
  return providers.get(name);
}
