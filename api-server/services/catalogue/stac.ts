/** Versions and extension schemas of the STAC documents this instance publishes. */
export const STAC_VERSION = '1.1.0';
export const DATACUBE_EXTENSION = 'https://stac-extensions.github.io/datacube/v2.3.0/schema.json';
export const TABLE_EXTENSION = 'https://stac-extensions.github.io/table/v1.2.0/schema.json';
export const PROJECTION_EXTENSION = 'https://stac-extensions.github.io/projection/v2.0.0/schema.json';
/**
 * Zarr v1.1.0, not v1.0.0: the published v1.0.0 schema requires a Zarr field on every asset of a collection, so a
 * thumbnail beside the store makes the collection invalid; v1.1.0 lets the fields sit on the store's assets only.
 */
export const ZARR_EXTENSION = 'https://stac-extensions.github.io/zarr/v1.1.0/schema.json';
export const VERSION_EXTENSION = 'https://stac-extensions.github.io/version/v1.2.0/schema.json';

export interface StacLink {
  href: string;
  rel: string;
  type?: string;
  title?: string;
}

export interface StacAsset {
  href: string;
  type: string;
  title: string;
  description?: string;
  roles: string[];
  /** Extension fields (`proj:code`, `zarr:zarr_format`, ...). */
  [field: string]: unknown;
}

/** A STAC Collection as published here; the extension fields of each kind sit beside the core ones. */
export interface StacCollection {
  type: 'Collection';
  stac_version: string;
  stac_extensions: string[];
  id: string;
  title: string;
  description: string;
  keywords: string[];
  license: string;
  providers: { name: string; roles: string[]; url?: string }[];
  extent: { spatial: { bbox: number[][] }; temporal: { interval: (string | null)[][] } };
  summaries: Record<string, unknown>;
  links: StacLink[];
  assets: Record<string, StacAsset>;
  /** Extension fields (`cube:dimensions`, ...). */
  [field: string]: unknown;
}

/** Where the links of one collection point: its own URL, and the catalogue it belongs to. */
export interface CollectionLinks {
  /** The instance's public base URL, for asset and related links. */
  base: string;
  self: string;
  root: string;
  parent: string;
}

export const JSON_TYPE = 'application/json';

/** The links every collection has: itself, its catalogue, and the API record that describes it. */
export function coreLinks(
  links: CollectionLinks,
  title: string,
  describedBy: { path: string; title: string },
): StacLink[] {
  return [
    { href: links.self, rel: 'self', type: JSON_TYPE, title },
    { href: links.root, rel: 'root', type: JSON_TYPE },
    { href: links.parent, rel: 'parent', type: JSON_TYPE },
    { href: `${links.base}${describedBy.path}`, rel: 'describedby', type: JSON_TYPE, title: describedBy.title },
  ];
}
