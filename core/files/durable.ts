import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Durable file writes, the one place that flushes and renames: the embedded cluster's resource files, the stores'
 * keys and versions, feature files and previews all write through here. A crash leaves either the previous state or
 * the new one whole, plus at most a temporary file that ends in `TEMP_SUFFIX`.
 */

/** How every temporary file ends, so that loaders can drop and listings can leave out what a crash left behind. */
export const TEMP_SUFFIX = '.stratus-tmp';

export const isTempName = (name: string) => name.endsWith(TEMP_SUFFIX);

/** Writes `data` to `path` and flushes it to disk before returning, so a later rename publishes complete bytes. */
export async function writeDurable(path: string, data: Uint8Array | string): Promise<void> {
  await writeFlushed(path, data);
}

/**
 * Opens `path` for writing, making its directory only when it is missing: most writes go to a directory that
 * exists, and a recursive mkdir of an existing one costs a failed mkdir and a stat on every write.
 */
async function openForWrite(path: string, mode?: number) {
  try {
    return await open(path, 'w', mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(dirname(path), { recursive: true });
    return open(path, 'w', mode);
  }
}

async function writeFlushed(path: string, data: Uint8Array | string, mode?: number): Promise<void> {
  const handle = await openForWrite(path, mode);
  try {
    await handle.writeFile(data);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

async function syncHandle(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a directory entry table (new names, renames, removals) to disk. */
export const syncDirectory = (path: string) => syncHandle(path, 'r');

/** Flushes every directory under `root` (the files were flushed as they were written). */
export async function syncTree(root: string): Promise<void> {
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true }))
    if (entry.isDirectory()) await syncDirectory(join(entry.parentPath, entry.name));
  await syncDirectory(root);
}

/** Writes a temporary file beside `path` with `write` (which flushes it), renames it over `path`, flushes the directory. */
async function replaceWith(path: string, write: (temporary: string) => Promise<void>): Promise<void> {
  const dir = dirname(path);
  const temporary = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  await mkdir(dir, { recursive: true });
  try {
    await write(temporary);
    await rename(temporary, path);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  await syncDirectory(dir);
}

/**
 * Replaces the file at `path` with what `fill` writes into the temporary file it is given (a hidden name in the same
 * directory): the temporary file is flushed, renamed over `path`, and the rename made durable. A reader sees the
 * previous file or the new one whole; on failure the temporary file is removed. For writers that produce the file
 * themselves (h5wasm, a copy); `writeFileAtomic` is the common case.
 */
export function replaceFile(path: string, fill: (temporary: string) => Promise<void> | void): Promise<void> {
  return replaceWith(path, async (temporary) => {
    await fill(temporary);
    await syncHandle(temporary, 'r+');
  });
}

/**
 * Replaces the file at `path` with `data` atomically and durably, as `replaceFile` does, in one open of the file;
 * `mode` sets the new file's permissions (before the umask), as `open` does.
 */
export function writeFileAtomic(path: string, data: Uint8Array | string, mode?: number): Promise<void> {
  return replaceWith(path, (temporary) => writeFlushed(temporary, data, mode));
}

export interface FileChange {
  path: string;
  /** The new content; absent: the file is removed. */
  data?: Uint8Array | string;
  mode?: number;
}

/** A change whose content is flushed to a temporary file beside its target, not yet in place. */
export interface PreparedChange {
  path: string;
  temporary?: string;
}

/**
 * The first half of a group commit: the new content written to a temporary file beside its target and flushed.
 * Changes are prepared concurrently; `finishFileChanges` puts a run of prepared ones in place with one flush per
 * directory, where replacing files one by one flushes every directory once per file.
 */
export async function prepareFileChange(change: FileChange): Promise<PreparedChange> {
  if (change.data === undefined) return { path: change.path };
  const dir = dirname(change.path);
  const temporary = join(dir, `.${basename(change.path)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  try {
    await writeFlushed(temporary, change.data, change.mode);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  return { path: change.path, temporary };
}

/**
 * The second half: in the given order, each temporary file renamed over its target or the target removed, then
 * each directory flushed once. A crash leaves every file whole, old or new. On failure, temporary files not yet
 * renamed are removed.
 */
export async function finishFileChanges(changes: readonly PreparedChange[]): Promise<void> {
  let done = 0;
  try {
    for (const change of changes) {
      if (change.temporary === undefined) await rm(change.path, { force: true });
      else await rename(change.temporary, change.path);
      done++;
    }
  } catch (err) {
    await discardPrepared(changes.slice(done));
    throw err;
  }
  await Promise.all([...new Set(changes.map((change) => dirname(change.path)))].map(syncDirectory));
}

/** Removes the temporary files of prepared changes that will not be finished. */
export async function discardPrepared(changes: readonly PreparedChange[]): Promise<void> {
  await Promise.all(changes.map((c) => (c.temporary ? rm(c.temporary, { force: true }) : undefined)));
}

/** Removes a file and makes the removal durable. */
export async function removeFileDurably(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncDirectory(dirname(path));
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
