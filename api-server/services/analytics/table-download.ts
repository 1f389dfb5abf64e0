/**
 * The Parquet download of a whole table version as one file, though the version is stored as a file per year:
 * DHIS2 users and their tools expect one file. It is encoded once per loaded version from the rows the server holds
 * for its queries anyway, then answered from memory with an ETag and byte ranges.
 */
import { encodeAnalyticsTable } from '../../../core/analytics/table-file.ts';
import type { AnalyticsTableVersion } from '../../../core/resources/analytics-table/schema.ts';
import type { Entity } from '../files/entity.ts';
import type { LoadedTable } from './tables.ts';

const downloads = new WeakMap<LoadedTable, Entity>();

export function tableDownload(table: LoadedTable, version: AnalyticsTableVersion, contentType: string): Entity {
  let entity = downloads.get(table);
  if (!entity) {
    const bytes = encodeAnalyticsTable(table.index.rows);
    const mtime = new Date(version.publishedAt);
    entity = { size: bytes.length, mtime, etag: `"${version.id}-${bytes.length.toString(36)}"`, contentType, bytes };
    downloads.set(table, entity);
  }
  return entity;
}
