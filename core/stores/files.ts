import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Writes `data` to `path` and flushes it to disk before returning, so a later rename publishes complete bytes. */
export async function writeDurable(path: string, data: Uint8Array | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(data);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Flushes a directory entry table (new names, renames) to disk. */
export async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes every directory under `root` (the files were flushed as they were written). */
export async function syncTree(root: string): Promise<void> {
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true }))
    if (entry.isDirectory()) await syncDirectory(join(entry.parentPath, entry.name));
  await syncDirectory(root);
}

/** Moves a complete directory into place with one rename, then makes the rename durable. */
export async function publishDirectory(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  await rename(from, to);
  await syncDirectory(dirname(to));
}

export async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

/** How the temporary files of `writeFileAtomic` end, so that listings of a store can leave them out. */
export const TEMP_SUFFIX = '.stratus-tmp';

/**
 * Replaces the file at `path` with `data` so that a reader sees either the previous file or the new one whole:
 * written and flushed under a temporary name in the same directory, renamed over, and the rename made durable.
 */
export async function writeFileAtomic(path: string, data: Uint8Array | string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  try {
    await writeDurable(temporary, data);
    await rename(temporary, path);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  await syncDirectory(dirname(path));
}
