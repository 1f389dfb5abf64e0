/**
 * File digests for provenance: SHA-256 in hex, and as the multihash the STAC File extension's `file:checksum`
 * takes (code 0x12 sha2-256, length 0x20, then the digest: `1220…`).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';

const SHA2_256_MULTIHASH_PREFIX = '1220';

export const sha256Multihash = (hexDigest: string) => `${SHA2_256_MULTIHASH_PREFIX}${hexDigest}`;

export const sha256Hex = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Hex SHA-256 of a file's bytes, read as a stream. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/**
 * Hex SHA-256 of a directory (a Zarr result): of the lines `<key>\t<sha256 of the file>\n` of every file below it,
 * keys `/`-separated and sorted, so it is the same wherever and in whichever order the files were written.
 */
export async function directorySha256(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const lines = await Promise.all(
    files.map(async (file) => `${relative(dir, file).split(sep).join('/')}\t${await fileSha256(file)}\n`),
  );
  return sha256Hex(lines.sort().join(''));
}
