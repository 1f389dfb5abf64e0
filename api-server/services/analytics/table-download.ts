/**
 * The Parquet download of a whole table version as one file, though the version is stored as a file per year:
 * DHIS2 users and their tools expect one file. Its size (so its ETag) comes from the digest the build wrote with the
 * version, so HEAD, a conditional or a ranged request needs no encoding; its bytes are encoded from the rows the
 * server holds for its queries anyway, once per loaded version, when a request first needs them (at once for a
 * version without a digest), then answered from memory.
 */
import { Readable } from 'node:stream';
import { encodeAnalyticsTable } from '../../../core/analytics/table-file.ts';
import type { AnalyticsTableVersion } from '../../../core/resources/analytics-table/schema.ts';
import type { Entity } from '../files/entity.ts';
import type { LoadedTable } from './tables.ts';

const downloads = new WeakMap<LoadedTable, Entity>();

export function tableDownload(table: LoadedTable, version: AnalyticsTableVersion, contentType: string): Entity {
  let entity = downloads.get(table);
  if (!entity) {
    const described = (size: number) => ({
      size,
      mtime: new Date(version.publishedAt),
      etag: `"${version.id}-${size.toString(36)}"`,
      contentType,
    });
    if (table.download) {
      let bytes: Uint8Array | undefined;
      const encoded = () => (bytes ??= encodeAnalyticsTable(table.index.rows));
      const range = (start: number, end: number) => {
        const whole = encoded();
        return Readable.from([Buffer.from(whole.buffer, whole.byteOffset + start, end - start + 1)]);
      };
      entity = { ...described(table.download.size), stream: range };
    } else {
      const bytes = encodeAnalyticsTable(table.index.rows);
      entity = { ...described(bytes.length), bytes };
    }
    downloads.set(table, entity);
  }
  return entity;
}
