/**
 * The digest of a table version's download: the SHA-256 and size of the version as one Parquet file
 * (`encodeAnalyticsTable` of all its rows), the bytes `GET /analytics/{table}.parquet` answers and a delivery's
 * provenance names. It is kept beside the version's year partitions (`download.json`, outside the glob of the data
 * files DuckDB reads). A full build writes it as it publishes, having every row in memory; an incremental build does
 * not, as it would have to read back every year it links, many times the cost of the update itself: the first
 * delivery that needs the digest computes it and keeps it for the next.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../files/durable.ts';
import { sha256Hex } from '../provenance/digest.ts';
import { encodeAnalyticsColumns, isPartitioned, type AnalyticsColumns } from './table-file.ts';

const downloadDigestSchema = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().min(0) });

export type DownloadDigest = z.infer<typeof downloadDigestSchema>;

const digestFile = (version: string) => join(version, 'download.json');

export const digestOfDownload = (bytes: Uint8Array): DownloadDigest => ({
  sha256: sha256Hex(bytes),
  size: bytes.byteLength,
});

/**
 * Encodes the version's rows (every row, in the contract's order: the bytes `encodeAnalyticsTable` makes of them) as
 * its download and writes their digest into the version's directory.
 */
export async function writeDownloadDigest(version: string, rows: AnalyticsColumns): Promise<DownloadDigest> {
  const digest = digestOfDownload(encodeAnalyticsColumns(rows));
  await writeFileAtomic(digestFile(version), JSON.stringify(digest));
  return digest;
}

/** The digest kept for the version at `path`; undefined when it has none. */
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

/**
 * The digest of the version at `path`: the kept one, or that of `download()` (its bytes, `encodeAnalyticsTable` of
 * all its rows; a caller that sends them passes the bytes it sends) computed and kept when the version is
 * partitioned. Keeping it is a cache: a reader that may not write there (a read-only mount) still has its answer.
 */
export async function downloadDigestOf(path: string, download: () => Uint8Array): Promise<DownloadDigest> {
  const kept = await readDownloadDigest(path);
  if (kept) return kept;
  const digest = digestOfDownload(download());
  if (isPartitioned(path)) await writeFileAtomic(digestFile(path), JSON.stringify(digest)).catch(() => undefined);
  return digest;
}
