/**
 * The digest of a table version's download: the SHA-256 and size of the version as one Parquet file
 * (`encodeAnalyticsTable` of all its rows), the bytes `GET /analytics/{table}.parquet` answers and a delivery's
 * provenance names. The build computes it once, when it publishes the version, and writes it beside the version's
 * year partitions (`download.json`, outside the glob of the year files DuckDB reads); a version without it (published
 * before, or a single-file version) is encoded by whoever needs its digest.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../files/durable.ts';
import { sha256Hex } from '../provenance/digest.ts';
import { encodeAnalyticsTable, isPartitioned, type AnalyticsRow } from './table-file.ts';

const downloadDigestSchema = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().min(0) });

export type DownloadDigest = z.infer<typeof downloadDigestSchema>;

const digestFile = (version: string) => join(version, 'download.json');

export const digestOfDownload = (bytes: Uint8Array): DownloadDigest => ({
  sha256: sha256Hex(bytes),
  size: bytes.byteLength,
});

/** Encodes the version's rows as its download and writes their digest into the version's directory. */
export async function writeDownloadDigest(version: string, rows: readonly AnalyticsRow[]): Promise<DownloadDigest> {
  const digest = digestOfDownload(encodeAnalyticsTable(rows));
  await writeFileAtomic(digestFile(version), JSON.stringify(digest));
  return digest;
}

/** The digest the build wrote for the version at `path`; undefined when it has none. */
export async function readDownloadDigest(path: string): Promise<DownloadDigest | undefined> {
  if (!isPartitioned(path)) return undefined;
  let text: string;
  try {
    text = await readFile(digestFile(path), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return downloadDigestSchema.parse(JSON.parse(text));
}
