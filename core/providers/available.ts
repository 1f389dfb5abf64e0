/**
 * Names of the provider implementations this build carries (`DataSource.spec.provider.name`). A DataSource
 * naming any other provider is valid but not ingestable here. The providers (chirps, era5-land, worldpop,
 * sample) arrive with the raster datasets work; each adds its name here when it lands.
 */
export const availableProviders: readonly string[] = [];

export function isProviderAvailable(name: string): boolean {
  return availableProviders.includes(name);
}
