import { readFile, stat } from 'node:fs/promises';
import { ByteBudgetLru } from '../cache/byte-budget-lru.ts';

export interface CachedFile {
  size: number;
  mtime: Date;
  /** The whole content, for files small enough to keep. */
  bytes?: Buffer;
}

/**
 * Store versions are immutable once published (they appear by one rename and are never written again), so the
 * metadata and, up to `maxFileBytes`, the content of a file can be kept in memory and served without touching
 * the disk. Least recently used entries go first once `maxBytes` is held. A path that does not exist is never
 * cached: it may appear with the next version.
 */
export class ImmutableFileCache {
  readonly #entries: ByteBudgetLru<CachedFile>;
  readonly #maxFileBytes: number;

  constructor({ maxBytes = 128 << 20, maxFileBytes = 2 << 20 } = {}) {
    this.#entries = new ByteBudgetLru(maxBytes);
    this.#maxFileBytes = maxFileBytes;
  }

  /** The file at `path`, or undefined when it is not a regular file. */
  async get(path: string): Promise<CachedFile | undefined> {
    const hit = this.#entries.get(path);
    if (hit) return hit;
    const entry = await readImmutableFile(path, this.#maxFileBytes);
    if (entry) this.#entries.set(path, entry, entry.bytes?.length ?? 0);
    return entry;
  }
}

/** A regular file's size and time, and its content when it has at most `maxFileBytes`; undefined for no file. */
export async function readImmutableFile(path: string, maxFileBytes: number): Promise<CachedFile | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const entry: CachedFile = { size: info.size, mtime: info.mtime };
  if (info.size <= maxFileBytes) entry.bytes = await readFile(path);
  return entry;
}
