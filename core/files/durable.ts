import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fdatasync,
  fsync,
  open as openDescriptor,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Durable file writes, the one place that flushes and renames: the embedded cluster's resource files, the stores'
 * keys and versions, feature files and previews all write through here. A crash leaves either the previous state or
 * the new one whole, plus at most a temporary file that ends in `TEMP_SUFFIX`.
 */

/** How every temporary file ends, so that loaders can drop and listings can leave out what a crash left behind. */
export const TEMP_SUFFIX = '.stratus-tmp';

export const isTempName = (name: string) => name.endsWith(TEMP_SUFFIX);

/**
 * Temporary names are unique without drawing random bytes for each: a random prefix drawn once per thread (module
 * state is per thread), so that processes sharing a volume from different machines or containers (where process ids
 * repeat) never meet, and a counter. Drawing random bytes for each write cost the embedded store's main thread a
 * share worth saving (measured in docs/performance.md's history).
 */
const temporaryPrefix = randomBytes(6).toString('hex');
let temporaryCount = 0;

/** A hidden name beside `path` that loaders drop and listings leave out. */
function temporaryBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${temporaryPrefix}-${(temporaryCount++).toString(36)}${TEMP_SUFFIX}`);
}

/** Writes `data` to `path` and flushes it to disk before returning, so a later rename publishes complete bytes. */
export async function writeDurable(path: string, data: Uint8Array | string): Promise<void> {
  await writeFlushed(path, data);
}

const openFor = promisify(openDescriptor);
/** Flushes a descriptor's data (and its size) to disk in libuv's pool: the embedded store's journal appends use it too. */
export const datasyncFor = promisify(fdatasync);
const fsyncFor = promisify(fsync);

/**
 * Opens `path` for writing with `opener`, making its directory only when it is missing: most writes go to a
 * directory that exists, and a recursive mkdir of an existing one costs a failed mkdir and a stat on every write.
 */
async function openForWrite<T>(path: string, opener: (path: string) => Promise<T>): Promise<T> {
  try {
    return await opener(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(dirname(path), { recursive: true });
    return opener(path);
  }
}

async function writeFlushed(path: string, data: Uint8Array | string, mode?: number): Promise<void> {
  const handle = await openForWrite(path, (p) => open(p, 'w', mode));
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

/**
 * Flushes a directory entry table (new names, renames, removals) to disk. Only the flush goes to libuv's pool of
 * four threads: opening and closing a directory seldom wait on the disk, and each trip through the pool queues
 * behind the flushes that other writers have queued there.
 */
export async function syncDirectory(path: string): Promise<void> {
  const fd = openSync(path, 'r');
  try {
    await fsyncFor(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes every directory under `root` (the files were flushed as they were written). */
export async function syncTree(root: string): Promise<void> {
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true }))
    if (entry.isDirectory()) await syncDirectory(join(entry.parentPath, entry.name));
  await syncDirectory(root);
}

/** Writes a temporary file beside `path` with `write` (which flushes it), renames it over `path`, flushes the directory. */
async function replaceWith(path: string, write: (temporary: string) => Promise<void>): Promise<void> {
  const dir = dirname(path);
  const temporary = temporaryBeside(path);
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
 * The first half of writing a group of files (the embedded store's checkpoints): the new content written to a
 * temporary file beside its target and flushed. Changes are prepared concurrently; `finishFileChanges` puts a run of
 * prepared ones in place with one flush per directory, where replacing files one by one flushes every directory once
 * per file. The target's directory is made when missing. For small contents (resource files): they are written into
 * the page cache on the calling thread, which costs less than a trip through libuv's pool; only the open (which
 * allocates an inode) and the flush go there.
 */
export async function prepareFileChange(change: FileChange): Promise<PreparedChange> {
  if (change.data === undefined) return { path: change.path };
  const temporary = temporaryBeside(change.path);
  try {
    const fd = await openForWrite(temporary, (p) => openFor(p, 'w', change.mode));
    try {
      writeFileSync(fd, change.data);
      await datasyncFor(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  return { path: change.path, temporary };
}

/**
 * The second half: in the given order, each temporary file renamed over its target or the target removed, then
 * each directory flushed once. A crash leaves every file whole, old or new. On failure, temporary files not yet
 * renamed are removed. The renames and removals run on the calling thread: they change directory entries in the
 * cache and seldom wait on the disk (the flush after them does), and awaiting each through libuv's pool queued it
 * behind the flushes of the changes preparing meanwhile, which under many writers made a run of renames many times
 * slower (measured in docs/performance.md's history).
 */
export async function finishFileChanges(changes: readonly PreparedChange[]): Promise<void> {
  let done = 0;
  try {
    for (const change of changes) {
      if (change.temporary === undefined) rmSync(change.path, { force: true });
      else renameSync(change.temporary, change.path);
      done++;
    }
  } catch (err) {
    await discardPrepared(changes.slice(done));
    throw err;
  }
  const directories = new Set(changes.map((change) => dirname(change.path)));
  // A removal whose file was never written (created and deleted between two checkpoints) may name no directory.
  await Promise.all([...directories].map((dir) => syncDirectory(dir).catch(ignoreMissing)));
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
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
