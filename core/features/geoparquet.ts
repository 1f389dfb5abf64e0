/**
 * GeoParquet 1.1 writer: one row per feature, the geometry as WKB in `geometry`, a `bbox` struct column
 * (xmin, ymin, xmax, ymax) declared as the geometry's covering so readers can skip row groups by their
 * statistics, one column per property, and the `geo` file metadata (primary column, geometry types, CRS as
 * PROJJSON, bbox). The geometry column is stored uncompressed, the others with Snappy. WKB is encoded here (`wkb.ts`); Parquet encoding itself is hyparquet-writer's.
 */
import { parquetWriteBuffer, type ColumnSource, type SchemaElement } from 'hyparquet-writer';
import { writeFileAtomic } from '../files/durable.ts';
import { STORED_CRS_PROJJSON } from './crs.ts';
import { bboxOf, unionBbox, type Bbox, type Feature, type GeometryType, type PropertyValue } from './geometry.ts';
import { geometryToWkb } from './wkb.ts';

export const GEOMETRY_COLUMN = 'geometry';
export const BBOX_COLUMN = 'bbox';
export const GEOPARQUET_VERSION = '1.1.0';
/** Rows per row group: small enough that a bbox filter skips most of a large file, large enough to compress. */
export const DEFAULT_ROW_GROUP_SIZE = 10_000;

export interface GeoParquetOptions {
  rowGroupSize?: number;
}

export interface GeoParquetSummary {
  featureCount: number;
  /** Sorted; the types the `geo` metadata declares. */
  geometryTypes: GeometryType[];
  /** Of every geometry; undefined for an empty collection. */
  bbox: Bbox | undefined;
  /** Property columns in file order. */
  properties: string[];
}

type PropertyKind = 'DOUBLE' | 'BOOLEAN' | 'UTF8' | 'JSON';

/** The narrowest column type that holds every non-null value of a property: mixed or nested values become JSON. */
function propertyKind(values: PropertyValue[]): PropertyKind {
  const kinds = new Set<PropertyKind>();
  for (const value of values) {
    if (value === null) continue;
    if (typeof value === 'number') kinds.add('DOUBLE');
    else if (typeof value === 'boolean') kinds.add('BOOLEAN');
    else if (typeof value === 'string') kinds.add('UTF8');
    else kinds.add('JSON');
  }
  return kinds.size === 1 ? [...kinds][0]! : kinds.size === 0 ? 'UTF8' : 'JSON';
}

const schemaFor: Record<PropertyKind, Omit<SchemaElement, 'name'>> = {
  DOUBLE: { type: 'DOUBLE', repetition_type: 'OPTIONAL' },
  BOOLEAN: { type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
  UTF8: { type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
  JSON: { type: 'BYTE_ARRAY', converted_type: 'JSON', repetition_type: 'OPTIONAL' },
};

function propertyNames(features: Feature[]): string[] {
  const names = new Set<string>();
  for (const feature of features) for (const name of Object.keys(feature.properties)) names.add(name);
  for (const reserved of [GEOMETRY_COLUMN, BBOX_COLUMN])
    if (names.has(reserved)) throw new Error(`property "${reserved}" collides with the column of the same name`);
  return [...names];
}

/** Encodes features (already valid and in the stored CRS) as a GeoParquet 1.1 file. */
export function encodeGeoParquet(
  features: Feature[],
  options: GeoParquetOptions = {},
): { bytes: Uint8Array; summary: GeoParquetSummary } {
  const properties = propertyNames(features);
  const boxes: Bbox[] = [];
  let bbox: Bbox | undefined;
  for (const feature of features) {
    const box = bboxOf(feature.geometry);
    if (!box) throw new Error('a feature without positions reached the writer; validate features first');
    boxes.push(box);
    bbox = unionBbox(bbox, box);
  }
  const geometryTypes = [...new Set(features.map((f) => f.geometry.type))].sort();

  const schema: SchemaElement[] = [
    { name: 'root', num_children: 2 + properties.length },
    { name: GEOMETRY_COLUMN, type: 'BYTE_ARRAY', repetition_type: 'REQUIRED' },
    { name: BBOX_COLUMN, repetition_type: 'REQUIRED', num_children: 4 },
    ...['xmin', 'ymin', 'xmax', 'ymax'].map((name): SchemaElement => ({
      name,
      type: 'DOUBLE',
      repetition_type: 'REQUIRED',
    })),
  ];
  const columnData: ColumnSource[] = [
    // Plain pages without statistics: WKB neither repeats nor orders usefully; the bbox columns carry the statistics.
    // Uncompressed: the coordinates of real boundaries are noisy doubles that Snappy shrinks by a tenth at most,
    // while decompressing them in JavaScript is most of a read's time.
    {
      name: GEOMETRY_COLUMN,
      data: features.map((f) => geometryToWkb(f.geometry)),
      encoding: 'PLAIN',
      codec: 'UNCOMPRESSED',
      statistics: false,
    },
    { name: BBOX_COLUMN, data: boxes.map(([xmin, ymin, xmax, ymax]) => ({ xmin, ymin, xmax, ymax })) },
  ];
  for (const name of properties) {
    const values = features.map((f) => f.properties[name] ?? null);
    const kind = propertyKind(values);
    schema.push({ name, ...schemaFor[kind] });
    // hyparquet-writer serializes the values of a JSON column itself.
    columnData.push({ name, data: values });
  }

  const geo = {
    version: GEOPARQUET_VERSION,
    primary_column: GEOMETRY_COLUMN,
    columns: {
      [GEOMETRY_COLUMN]: {
        encoding: 'WKB',
        geometry_types: geometryTypes,
        crs: STORED_CRS_PROJJSON,
        ...(bbox && { bbox }),
        covering: {
          bbox: {
            xmin: [BBOX_COLUMN, 'xmin'],
            ymin: [BBOX_COLUMN, 'ymin'],
            xmax: [BBOX_COLUMN, 'xmax'],
            ymax: [BBOX_COLUMN, 'ymax'],
          },
        },
      },
    },
  };
  const buffer = parquetWriteBuffer({
    columnData,
    schema,
    rowGroupSize: options.rowGroupSize ?? DEFAULT_ROW_GROUP_SIZE,
    kvMetadata: [{ key: 'geo', value: JSON.stringify(geo) }],
    createdBy: 'stratus',
  });
  return { bytes: new Uint8Array(buffer), summary: { featureCount: features.length, geometryTypes, bbox, properties } };
}

/** Writes the file atomically: a reader of `path` sees the previous file or the complete new one. */
export async function writeGeoParquet(
  path: string,
  features: Feature[],
  options: GeoParquetOptions = {},
): Promise<GeoParquetSummary> {
  const { bytes, summary } = encodeGeoParquet(features, options);
  await writeFileAtomic(path, bytes);
  return summary;
}
