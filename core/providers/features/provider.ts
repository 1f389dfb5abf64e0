import type { Credentials } from '../http.ts';
import type { Bbox } from '../../features/geometry.ts';

/** What a feature provider is asked for: the source's provider parameters and the instance extent. */
export interface FeatureRequest {
  parameters: Record<string, unknown>;
  /** xmin, ymin, xmax, ymax in degrees. */
  bbox: Bbox;
  signal: AbortSignal;
  /** Credentials from the Secret the source names, when it names one. */
  credentials?: Credentials;
}

/** A source's features as fetched: a GeoJSON FeatureCollection document, not yet validated. */
export interface FetchedFeatures {
  document: unknown;
  /** Where the document came from, for error messages (a URL, or the provider's name). */
  origin: string;
  /** The CRS of the positions when the provider knows it better than the document says. */
  crs?: string;
}

export interface FeatureProvider {
  name: string;
  /** The `Authorization` scheme of a token from `tokenSecret` (DHIS2: `ApiToken`); `Bearer` when unset. */
  tokenScheme?: string;
  fetch(request: FeatureRequest): Promise<FetchedFeatures>;
}
