import { copyFile, mkdir, open, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Storage as IcechunkStorage, StorageListInfo, StorageVersionInfo } from '@earthmover/icechunk';
import { isTempName, replaceFile, writeFileAtomic } from '../../files/durable.ts';
import { resolveKey } from '../layout.ts';
import { icechunk } from './module.ts';

type IcechunkStorageClass = typeof IcechunkStorage;
type Backend = Parameters<IcechunkStorageClass['newCustom']>[0];
/**
 * The bindings call every backend method error-first (`(null, args)`), as their README says; their typings omit
 * that first argument.
 */
type ErrorFirst<F> = F extends () => infer R
  ? (err: null) => R
  : F extends (args: infer A) => infer R
    ? (err: null, args: A) => R
    : never;
type FileBackend = { [K in keyof Backend]: ErrorFirst<Backend[K]> };

/** Suffix of the adapter's lock files; like temporary files, never listed, never served. */
const LOCK_SUFFIX = '.stratus-lock';
const LOCK_WAIT_MS = 5_000;

/** True for a name the file storage writes only for a moment (a temp file or a lock), never an Icechunk object. */
export const isTransientName = (name: string) => isTempName(name) || name.endsWith(LOCK_SUFFIX);

/**
 * The version of an object as Icechunk compares it for conditional updates. Every write is a rename of a new
 * file, so the inode changes with the content; size and mtime guard against inode reuse.
 */
async function versionOf(path: string): Promise<StorageVersionInfo | undefined> {
  const info = await stat(path, { bigint: true }).catch(() => undefined);
  return info?.isFile() ? { etag: `${info.ino}-${info.mtimeNs}-${info.size}` } : undefined;
}

const notFound = (path: string) => new Error(`ObjectNotFound: ${path}`);

/**
 * Icechunk's storage on a local or mounted file system (the store PVC), for the builds that have no native
 * file-system backend (wasm32-wasi). Objects are files under `root`; each write goes to a temp file that is
 * flushed, renamed into place and its directory flushed, so a crash never leaves a torn object. Conditional
 * updates (the branch refs Icechunk compare-and-swaps) hold a lock file across the compare and the rename, so
 * two writers on one repository cannot both win.
 */
export function fileSystemStorage(root: string): IcechunkStorage {
  const { Storage } = icechunk();

  function fileOf(path: string): string {
    const file = resolveKey(root, path);
    if (file === undefined || path === '' || isTransientName(path))
      throw new Error(`not an object path: ${JSON.stringify(path)}`);
    return file;
  }

  async function writeAtomically(file: string, data: Uint8Array): Promise<StorageVersionInfo> {
    await writeFileAtomic(file, data);
    return (await versionOf(file))!;
  }

  /** Runs `update` while holding the object's lock file; stale locks older than the wait are broken. */
  async function locked<T>(file: string, update: () => Promise<T>): Promise<T> {
    await mkdir(dirname(file), { recursive: true });
    const lock = `${file}${LOCK_SUFFIX}`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      const handle = await open(lock, 'wx').catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
        return undefined;
      });
      if (handle) {
        await handle.close();
        break;
      }
      if (Date.now() > deadline) await rm(lock, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    try {
      return await update();
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }

  /** Whether `expected` (absent: any; `{}`: must not exist) matches the object's current version. */
  async function matches(file: string, expected: StorageVersionInfo | undefined): Promise<boolean> {
    if (expected === undefined) return true;
    const current = await versionOf(file);
    if (expected.etag === undefined && expected.generation === undefined) return current === undefined;
    return current?.etag === expected.etag;
  }

  const backend: FileBackend = {
    canWrite: async () => true,

    getObjectRange: async (_err, { path, rangeStart, rangeEnd }) => {
      const file = fileOf(path);
      const handle = await open(file, 'r').catch(() => {
        throw notFound(path);
      });
      try {
        const info = await handle.stat({ bigint: true });
        const size = Number(info.size);
        const start = Math.min(rangeStart ?? 0, size);
        const end = Math.min(rangeEnd ?? size, size);
        const data = Buffer.alloc(Math.max(0, end - start));
        if (data.length > 0) await handle.read(data, 0, data.length, start);
        return { data, version: { etag: `${info.ino}-${info.mtimeNs}-${info.size}` } };
      } finally {
        await handle.close();
      }
    },

    putObject: async (_err, { path, data, previousVersion }) => {
      const file = fileOf(path);
      await mkdir(dirname(file), { recursive: true });
      if (previousVersion === undefined) return { kind: 'updated', newVersion: await writeAtomically(file, data) };
      return locked(file, async () =>
        (await matches(file, previousVersion))
          ? { kind: 'updated', newVersion: await writeAtomically(file, data) }
          : { kind: 'not_on_latest_version' },
      );
    },

    copyObject: async (_err, { from, to, version }) => {
      const [source, target] = [fileOf(from), fileOf(to)];
      if (!(await matches(source, version))) return { kind: 'not_on_latest_version' };
      await replaceFile(target, (temporary) => copyFile(source, temporary));
      return { kind: 'updated', newVersion: await versionOf(target) };
    },

    listObjects: async (_err, prefix) => {
      const base = prefix === '' ? root : fileOf(prefix.replace(/\/$/, ''));
      const entries = await readdir(base, { recursive: true, withFileTypes: true }).catch(() => []);
      const listed: StorageListInfo[] = [];
      for (const entry of entries) {
        if (!entry.isFile() || isTransientName(entry.name)) continue;
        const file = join(entry.parentPath, entry.name);
        const info = await stat(file).catch(() => undefined);
        if (!info) continue;
        listed.push({ id: relative(base, file).split(sep).join('/'), createdAt: info.mtime, sizeBytes: info.size });
      }
      return listed;
    },

    deleteBatch: async (_err, { prefix, batch }) => {
      let deletedObjects = 0;
      let deletedBytes = 0;
      for (const item of batch) {
        const file = fileOf(prefix === '' ? item.id : `${prefix.replace(/\/$/, '')}/${item.id}`);
        const removed = await unlink(file).then(
          () => true,
          () => false,
        );
        if (removed) [deletedObjects, deletedBytes] = [deletedObjects + 1, deletedBytes + item.size];
      }
      return { deletedObjects, deletedBytes };
    },

    getObjectLastModified: async (_err, path) => {
      const info = await stat(fileOf(path)).catch(() => undefined);
      if (!info?.isFile()) throw notFound(path);
      return info.mtime;
    },

    getObjectConditional: async (_err, { path, previousVersion }) => {
      const file = fileOf(path);
      const current = await versionOf(file);
      if (!current) throw notFound(path);
      if (previousVersion?.etag !== undefined && previousVersion.etag === current.etag)
        return { kind: 'on_latest_version' };
      const data = await readFile(file);
      // The version read with the bytes: a write between the stat and the read changes the inode.
      return { kind: 'modified', data, newVersion: (await versionOf(file)) ?? current };
    },
  };
  return Storage.newCustom(backend as unknown as Backend);
}
