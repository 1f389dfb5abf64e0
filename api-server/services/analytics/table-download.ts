/**
 * The Parquet download of a whole table version as one file, though the version is stored as a file per month
 * and year: DHIS2 users and their tools expect one file. Its size (so its ETag) comes from the version's download digest
 * (`downloadDigestOf`, as a delivery reads it): the one the build wrote, or, for a version published without one
 * (an incremental build), computed from the bytes the first download encodes and kept beside the version for every
 * later load. Its bytes are encoded from the rows the server holds for its queries anyway, once per loaded version,
 * when a request first needs them, then answered from memory: with a kept digest, a HEAD, a conditional or a ranged
 * request needs no encoding.
 */
import { Readable } from 'node:stream';
import { downloadDigestOf } from '../../../core/analytics/download-digest.ts';
import { encodeAnalyticsTable } from '../../../core/analytics/table-file.ts';
import type { AnalyticsTableVersion } from '../../../core/resources/analytics-table/schema.ts';
import type { Entity } from '../files/entity.ts';
import type { LoadedTable } from './tables.ts';

const downloads = new WeakMap<LoadedTable, Promise<Entity>>();

/** `path`: the version's directory, where its digest is kept. */
export function tableDownload(
  table: LoadedTable,
  version: AnalyticsTableVersion,
  path: string,
  contentType: string,
): Promise<Entity> {
  let entity = downloads.get(table);
  if (!entity) {
    entity = describedDownload(table, version, path, contentType);
    downloads.set(table, entity);
    // A failed digest is not kept: the next request tries again.
    entity.catch(() => {
      if (downloads.get(table) === entity) downloads.delete(table);
    });
  }
  return entity;
}

async function describedDownload(
  table: LoadedTable,
  version: AnalyticsTableVersion,
  path: string,
  contentType: string,
): Promise<Entity> {
  let bytes: Uint8Array | undefined;
  const encoded = () => (bytes ??= encodeAnalyticsTable(table.index.rows));
  const { size } = table.download ?? (await downloadDigestOf(path, encoded));
  const range = (start: number, end: number) => {
    const whole = encoded();
    return Readable.from([Buffer.from(whole.buffer, whole.byteOffset + start, end - start + 1)]);
  };
  return {
    size,
    mtime: new Date(version.publishedAt),
    etag: `"${version.id}-${size.toString(36)}"`,
    contentType,
    stream: range,
  };
}
