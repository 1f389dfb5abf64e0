/**
 * Reads a GeoParquet file in one of two shapes; in both, every column except geometry columns and the bbox
 * covering is a property:
 * - a GeoJSON FeatureCollection document, for sources that publish GeoParquet and consumers of GeoJSON features:
 *   hyparquet decodes the WKB of the primary geometry column (it reads the `geo` metadata itself) and builds one
 *   object per row;
 * - columns, for consumers that need no object per feature: the primary geometry as each row's WKB bytes
 *   (undecoded) and one array per property, with no object built per row; or some properties only, without the
 *   geometry.
 */
import { parquetMetadata, parquetRead, parquetReadObjects, parquetSchema, toJson, type FileMetaData } from 'hyparquet';
import { RunError } from '../runs/errors.ts';
import { ownBuffer } from '../buffers.ts';

interface GeoColumn {
  crs?: unknown;
  covering?: { bbox?: Record<string, string[]> };
}

interface GeoMetadata {
  primary_column?: string;
  columns?: Record<string, GeoColumn>;
}

const invalid = (origin: string, why: string) => new RunError('InvalidGeoParquet', `${origin}: ${why}`);

/** `EPSG:32628` from a PROJJSON CRS with an id; undefined for an absent CRS (GeoParquet's default, OGC:CRS84). */
function crsName(crs: unknown, origin: string): string | undefined {
  if (crs === undefined) return undefined;
  if (crs === null) throw invalid(origin, 'the geometry has an undefined CRS (crs: null)');
  const id = (crs as { id?: { authority?: unknown; code?: unknown } }).id;
  if (typeof id?.authority !== 'string' || (typeof id.code !== 'number' && typeof id.code !== 'string'))
    throw invalid(origin, 'the geometry CRS is PROJJSON without an authority id');
  return `${id.authority}:${id.code}`;
}

/** A GeoParquet file's bytes and what its `geo` metadata says. */
interface GeoParquetFile {
  file: ArrayBuffer;
  metadata: FileMetaData;
  primary: string;
  /** Geometry columns and the bbox covering: the columns that are not properties. */
  skipped: Set<string>;
  crs: string | undefined;
}

function openGeoParquet(bytes: Uint8Array, origin: string): GeoParquetFile {
  // A file read whole owns its buffer: no copy then.
  const file = ownBuffer(bytes);
  let metadata: FileMetaData;
  let geo: GeoMetadata;
  try {
    metadata = parquetMetadata(file);
    const value = metadata.key_value_metadata?.find((kv) => kv.key === 'geo')?.value;
    if (value === undefined) throw invalid(origin, 'the Parquet file has no "geo" metadata');
    geo = JSON.parse(value) as GeoMetadata;
  } catch (err) {
    if (err instanceof RunError) throw err;
    throw invalid(origin, `not a GeoParquet file (${(err as Error).message})`);
  }
  const primary = geo.primary_column;
  const column = primary === undefined ? undefined : geo.columns?.[primary];
  if (primary === undefined || !column) throw invalid(origin, 'the "geo" metadata names no primary column');
  const skipped = new Set([
    ...Object.keys(geo.columns ?? {}),
    ...Object.values(column.covering?.bbox ?? {}).map((path) => path[0]!),
  ]);
  return { file, metadata, primary, skipped, crs: crsName(column.crs, origin) };
}

export async function readGeoParquetDocument(
  bytes: Uint8Array,
  origin: string,
): Promise<{ document: unknown; crs: string | undefined }> {
  const { file, metadata, primary, skipped, crs } = openGeoParquet(bytes, origin);
  const rows = await parquetReadObjects({ file, metadata });
  const features = rows.map((row) => {
    const properties: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(row)) if (!skipped.has(name)) properties[name] = toJson(value);
    return { type: 'Feature', properties, geometry: row[primary] ?? null };
  });
  return { document: { type: 'FeatureCollection', features }, crs };
}

/** A GeoParquet file's properties as columns: row `i` is the feature `i` of the document read. */
export interface GeoParquetProperties {
  count: number;
  /** Each property's values by row, as the document read's properties hold them; in file order. */
  properties: Map<string, unknown[]>;
  crs: string | undefined;
}

/** A GeoParquet file as columns: its properties and each row's geometry. */
export interface GeoParquetColumns extends GeoParquetProperties {
  /** Each row's primary geometry as ISO WKB, null where the row has none. */
  wkb: (Uint8Array | null)[];
}

/** Reads the property columns `names` and, when `wkb` is given, the primary geometry into it as stored. */
async function readColumns(
  { file, metadata, primary }: GeoParquetFile,
  names: readonly string[],
  wkb?: (Uint8Array | null)[],
): Promise<Map<string, unknown[]>> {
  const count = Number(metadata.num_rows);
  const properties = new Map(names.map((name) => [name, new Array<unknown>(count)]));
  await parquetRead({
    file,
    metadata,
    columns: wkb ? [primary, ...names] : [...names],
    // The geometry stays the WKB the file stores: the parser of geometry columns decodes nothing.
    parsers: { geometryFromBytes: (stored: Uint8Array) => stored },
    onChunk: ({ columnName, columnData, rowStart }) => {
      if (columnName === primary)
        for (let i = 0; i < columnData.length; i++)
          wkb![rowStart + i] = (columnData[i] as Uint8Array | undefined) ?? null;
      else {
        const values = properties.get(columnName)!;
        for (let i = 0; i < columnData.length; i++) values[rowStart + i] = toJson(columnData[i]);
      }
    },
  });
  return properties;
}

const propertyNames = ({ metadata, skipped }: GeoParquetFile) =>
  parquetSchema(metadata)
    .children.map((child) => child.element.name)
    .filter((name) => !skipped.has(name));

export async function readGeoParquetColumns(bytes: Uint8Array, origin: string): Promise<GeoParquetColumns> {
  const opened = openGeoParquet(bytes, origin);
  const count = Number(opened.metadata.num_rows);
  const wkb = new Array<Uint8Array | null>(count);
  const properties = await readColumns(opened, propertyNames(opened), wkb);
  return { count, wkb, properties, crs: opened.crs };
}

/**
 * The properties among `names` that the file has, without reading its geometry: for a reader of names or ids, the
 * geometry being most of a file's bytes.
 */
export async function readGeoParquetProperties(
  bytes: Uint8Array,
  origin: string,
  names: readonly string[],
): Promise<GeoParquetProperties> {
  const opened = openGeoParquet(bytes, origin);
  const present = new Set(propertyNames(opened));
  const properties = await readColumns(
    opened,
    names.filter((name) => present.has(name)),
  );
  return { count: Number(opened.metadata.num_rows), properties, crs: opened.crs };
}
