/**
 * Reads a GeoParquet file into a GeoJSON FeatureCollection document, for sources that publish GeoParquet:
 * hyparquet decodes the WKB of the primary geometry column (it reads the `geo` metadata itself); every other
 * column except other geometry columns and the bbox covering becomes a property.
 */
import { parquetMetadata, parquetReadObjects, toJson } from 'hyparquet';
import { RunError } from '../runs/errors.ts';

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

export async function readGeoParquetDocument(
  bytes: Uint8Array,
  origin: string,
): Promise<{ document: unknown; crs: string | undefined }> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let geo: GeoMetadata;
  try {
    const value = parquetMetadata(file).key_value_metadata?.find((kv) => kv.key === 'geo')?.value;
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
  const rows = await parquetReadObjects({ file });
  const features = rows.map((row) => {
    const properties: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(row)) if (!skipped.has(name)) properties[name] = toJson(value);
    return { type: 'Feature', properties, geometry: row[primary] ?? null };
  });
  return { document: { type: 'FeatureCollection', features }, crs: crsName(column.crs, origin) };
}
