import type { StoredColumn } from '../../../core/features/columns.ts';
import { GEOMETRY_COLUMN } from '../../../core/features/geoparquet.ts';
import type { FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { licenseOf } from './license.ts';
import { coreLinks, STAC_VERSION, TABLE_EXTENSION, type CollectionLinks, type StacCollection } from './stac.ts';

export interface FeatureStacInput {
  collection: FeatureCollection;
  /** The columns of the stored GeoParquet file. */
  columns: StoredColumn[];
  /** The instance's name, as the host provider. */
  host: string;
  links: CollectionLinks;
}

/** The STAC Collection of a stored feature collection: a table (table extension) with its GeoParquet file. */
export function featureStacCollection({ collection, columns, host, links }: FeatureStacInput): StacCollection {
  const { spec, status } = collection;
  const id = collection.metadata.name;
  const spatial = status?.extent?.spatialWgs84 ?? status?.extent?.spatial;
  const { license, links: licenseLinks } = licenseOf(spec);
  const geometryTypes = status?.geometryTypes ?? [];
  const primary = status?.primaryGeometry ?? GEOMETRY_COLUMN;
  return {
    type: 'Collection',
    stac_version: STAC_VERSION,
    stac_extensions: [TABLE_EXTENSION],
    id,
    title: spec.name,
    description: spec.description ?? spec.name,
    keywords: ['features', ...geometryTypes],
    license,
    providers: [
      ...(spec.attribution ? [{ name: spec.attribution, roles: ['producer', 'licensor'] }] : []),
      { name: host, roles: ['host', 'processor'], url: links.base },
    ],
    extent: {
      spatial: { bbox: spatial ? [[spatial.xmin, spatial.ymin, spatial.xmax, spatial.ymax]] : [] },
      temporal: { interval: [[status?.extent?.temporal?.start ?? null, status?.extent?.temporal?.end ?? null]] },
    },
    'table:primary_geometry': primary,
    'table:columns': columns.map((c) => ({
      ...c,
      ...(c.name === primary && { description: 'Geometry, as WKB (GeoParquet 1.1)' }),
      ...(c.name === spec.idProperty && { description: 'Identifier of each feature' }),
    })),
    'table:row_count': status?.featureCount ?? 0,
    summaries: { geometry_types: geometryTypes, id_property: [spec.idProperty] },
    links: [
      ...coreLinks(links, spec.name, { path: `/features/${id}`, title: 'Feature collection record' }),
      ...licenseLinks,
    ],
    assets: {
      data: {
        href: `${links.base}/features/${id}/data.parquet`,
        type: 'application/vnd.apache.parquet',
        title: 'GeoParquet file',
        description: `GeoParquet 1.1: geometry column \`${primary}\` (WKB, EPSG:4326) with a bbox covering column; features identified by \`${spec.idProperty}\`.`,
        roles: ['data'],
      },
    },
  };
}
