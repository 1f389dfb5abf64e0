import { parsePeriod, type PeriodType } from '../../../core/periods/index.ts';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { resolveVersion, ZARR_FORMATS } from '../../../core/resources/dataset/served-version.ts';
import { licenseOf } from './license.ts';
import type { StoreGrid } from './store-grid.ts';
import {
  coreLinks,
  DATACUBE_EXTENSION,
  JSON_TYPE,
  PROJECTION_EXTENSION,
  STAC_VERSION,
  VERSION_EXTENSION,
  ZARR_EXTENSION,
  type CollectionLinks,
  type StacAsset,
  type StacCollection,
  type StacLink,
} from './stac.ts';

/** ISO 8601 durations between consecutive time steps, per native period. */
const TIME_STEP: Record<PeriodType, string> = {
  hourly: 'PT1H',
  daily: 'P1D',
  weekly: 'P7D',
  monthly: 'P1M',
  yearly: 'P1Y',
};

const WGS84_EPSG = 4326;
const WGS84_CODE = `EPSG:${WGS84_EPSG}`;
/** The time of a stored period: its start, as the store's `time` coordinate holds it. */
function instant(type: PeriodType | undefined, period: string | null | undefined): string | null {
  if (!type || !period) return null;
  return parsePeriod(type, period).start.toISOString();
}

/**
 * Projection fields of an asset holding the grid: the CRS, and the shape and affine transform (rasterio's order)
 * with which GDAL and other readers place the data without opening the store.
 */
function projectionOf(grid: StoreGrid): Record<string, unknown> {
  const [, ny, nx] = grid.shape;
  const fields: Record<string, unknown> = { 'proj:code': WGS84_CODE };
  if (ny !== undefined && nx !== undefined) fields['proj:shape'] = [ny, nx];
  if (!grid.geoTransform) return fields;
  const [x0, dx, rx, y0, ry, dy] = grid.geoTransform as [number, number, number, number, number, number];
  fields['proj:transform'] = [dx, rx, x0, ry, dy, y0];
  if (ny !== undefined && nx !== undefined && rx === 0 && ry === 0) {
    const xs = [x0, x0 + dx * nx];
    const ys = [y0, y0 + dy * ny];
    fields['proj:bbox'] = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  }
  return fields;
}

/** Zarr extension fields: what a reader must know to open the store (format, root group, consolidated or not). */
function zarrFieldsOf(grid: StoreGrid): Record<string, unknown> {
  return { 'zarr:zarr_format': grid.zarrFormat, 'zarr:node_type': 'group', 'zarr:consolidated': grid.consolidated };
}

function assetsOf(dataset: Dataset, base: string, grid: StoreGrid | undefined, thumbnail: boolean) {
  const id = dataset.metadata.name;
  const assets: Record<string, StacAsset> = {};
  if (grid) {
    assets.data = {
      href: `${base}/zarr/${id}/`,
      // A media type profile is how STAC clients (STAC Browser, OpenLayers' GeoZarr source) learn of levels.
      type: `application/vnd+zarr; version=${grid.zarrFormat}${grid.levels > 0 ? '; profile=multiscales' : ''}`,
      title: `Zarr v${grid.zarrFormat} store`,
      description:
        `Open with \`xarray.open_zarr("${base}/zarr/${id}/", consolidated=${grid.zarrFormat === 2 ? 'True' : 'False'})\`` +
        ` or GDAL \`ZARR:"/vsicurl/${base}/zarr/${id}/"\`. Variable \`${dataset.spec.variable ?? 'value'}\`, ` +
        `dimensions (time, lat, lon), chunks ${JSON.stringify(grid.chunks)}, data type ${grid.dataType}.` +
        (grid.levels > 0
          ? ` Multiscale levels 1 to ${grid.levels} (each a 2 × 2 mean of the one before) in the groups \`1/\` to ` +
            `\`${grid.levels}/\` (the Zarr multiscales convention): \`xarray.open_zarr(..., group="1")\`.`
          : ''),
      roles: ['data'],
      ...zarrFieldsOf(grid),
      ...projectionOf(grid),
    };
  }
  if (dataset.spec.format === 'icechunk') {
    assets.icechunk = {
      href: `${base}/icechunk/${id}/`,
      type: 'application/vnd+zarr; version=3; profile=icechunk',
      title: 'Icechunk repository',
      description: `Open with Icechunk's HTTP storage at \`${base}/icechunk/${id}/\`, branch \`main\`.`,
      roles: ['data', 'icechunk'],
      ...(grid && { ...zarrFieldsOf(grid), ...projectionOf(grid) }),
    };
  }
  if (resolveVersion(dataset, { formats: ['netcdf'] }).version) {
    assets.data = {
      href: `${base}/datasets/${id}/download`,
      type: 'application/x-netcdf',
      title: 'NetCDF-4 file',
      roles: ['data'],
    };
  }
  if (thumbnail) {
    assets.thumbnail = {
      href: `${base}/datasets/${id}/thumbnail.png`,
      type: 'image/png',
      title: 'Preview of the newest period',
      roles: ['thumbnail'],
    };
  }
  return assets;
}

/**
 * The Version extension's fields of the collection, which describes the served version: its id, and links to
 * itself as the latest version, to the version before it (read by name, `<id>@<version>`) and to the list of
 * retained versions; and the retained version ids, newest first, the values `load_collection`'s `version` property
 * filter selects among.
 */
function versionFields(
  dataset: Dataset,
  links: CollectionLinks,
): { version?: string; retained: string[]; links: StacLink[] } {
  const { version } = resolveVersion(dataset);
  if (!version) return { retained: [], links: [] };
  const id = dataset.metadata.name;
  const newestFirst = [...(dataset.status?.versions ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const predecessor = newestFirst.find((v) => v.createdAt < version.createdAt);
  const reader = (ref: string) =>
    ZARR_FORMATS.includes(dataset.spec.format)
      ? { href: `${links.base}/zarr/${ref}/`, type: 'application/vnd+zarr' }
      : { href: `${links.base}/datasets/${ref}`, type: JSON_TYPE };
  return {
    version: version.id,
    retained: newestFirst.map((v) => v.id),
    links: [
      { href: links.self, rel: 'latest-version', type: JSON_TYPE, title: `Version ${version.id}` },
      ...(predecessor
        ? [{ ...reader(`${id}@${predecessor.id}`), rel: 'predecessor-version', title: `Version ${predecessor.id}` }]
        : []),
      { href: `${links.base}/datasets/${id}`, rel: 'version-history', type: JSON_TYPE, title: 'Retained versions' },
    ],
  };
}

export interface RasterCollectionInput {
  dataset: Dataset;
  /** The grid of the current version, when it is a Zarr store. */
  grid: StoreGrid | undefined;
  /** Whether the thumbnail file exists now: the asset is advertised only then. */
  thumbnail: boolean;
  /** The instance's name, as the host provider. */
  host: string;
  /** The instance extent, for a dataset that records none of its own. */
  instanceBbox: [number, number, number, number];
  links: CollectionLinks;
}

/** The STAC Collection of a raster dataset: a data cube (datacube extension) over x, y and t. */
export function rasterCollection({
  dataset,
  grid,
  thumbnail,
  host,
  instanceBbox,
  links,
}: RasterCollectionInput): StacCollection {
  const { spec, status } = dataset;
  const id = dataset.metadata.name;
  const spatial = status?.extent?.spatialWgs84 ?? status?.extent?.spatial;
  const [xmin, ymin, xmax, ymax] = spatial
    ? [spatial.xmin, spatial.ymin, spatial.xmax, spatial.ymax]
    : (spec.bbox ?? instanceBbox);
  const start = instant(spec.periodType, status?.extent?.temporal.start);
  const end = instant(spec.periodType, status?.extent?.temporal.end);
  const variable = spec.variable ?? 'value';
  const { license: licenseId, links: licenseLinks } = licenseOf(spec);
  const versioned = versionFields(dataset, links);
  const spatialDimension = (axis: 'x' | 'y', extent: [number, number], step: number | undefined) => ({
    type: 'spatial',
    axis,
    extent,
    ...(step !== undefined && { step }),
    reference_system: WGS84_EPSG,
  });
  return {
    type: 'Collection',
    stac_version: STAC_VERSION,
    // Zarr fields sit on the store's assets, so that extension is declared only when the collection has one.
    stac_extensions: [
      DATACUBE_EXTENSION,
      PROJECTION_EXTENSION,
      ...(grid ? [ZARR_EXTENSION] : []),
      ...(versioned.version ? [VERSION_EXTENSION] : []),
    ],
    id,
    ...(versioned.version && { version: versioned.version }),
    title: spec.datasetName,
    description: spec.description ?? spec.datasetName,
    keywords: [spec.shortName, variable, spec.periodType, spec.sourceName].filter((k): k is string => !!k),
    license: licenseId,
    providers: [
      ...(spec.sourceName
        ? [{ name: spec.sourceName, roles: ['producer', 'licensor'], ...(spec.sourceUrl && { url: spec.sourceUrl }) }]
        : []),
      { name: host, roles: ['host', 'processor'], url: links.base },
    ],
    extent: { spatial: { bbox: [[xmin, ymin, xmax, ymax]] }, temporal: { interval: [[start, end]] } },
    'cube:dimensions': {
      x: spatialDimension('x', [xmin, xmax], grid?.resolution?.x),
      y: spatialDimension('y', [ymin, ymax], grid?.resolution?.y),
      t: {
        type: 'temporal',
        extent: [start, end],
        ...(spec.periodType && { step: TIME_STEP[spec.periodType] }),
      },
    },
    'cube:variables': {
      [variable]: {
        dimensions: ['t', 'y', 'x'],
        type: 'data',
        ...(spec.units !== undefined && { unit: spec.units }),
        ...(spec.description !== undefined && { description: spec.description }),
      },
    },
    summaries: {
      variables: [variable],
      'proj:code': [WGS84_CODE],
      ...(spec.periodType && { period_type: [spec.periodType] }),
      ...(spec.resolution && { resolution: [spec.resolution] }),
      ...(versioned.retained.length > 0 && { version: versioned.retained }),
    },
    links: [
      ...coreLinks(links, spec.datasetName, { path: `/datasets/${id}`, title: 'Dataset record' }),
      ...licenseLinks,
      ...(spec.sourceUrl ? [{ href: spec.sourceUrl, rel: 'via', type: 'text/html', title: 'Upstream source' }] : []),
      ...versioned.links,
    ],
    assets: assetsOf(dataset, links.base, grid, thumbnail),
  };
}
