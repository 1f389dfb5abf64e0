import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { Lru } from '../../../core/cache/lru.ts';
import { fileEntity, type Entity, type EntityDescription } from './entity.ts';

/** What one entry costs beyond its bytes, so that the budget also bounds how many entries are held. */
export const ENTRY_OVERHEAD_BYTES = 512;

/**
 * The entities of immutable files, in memory: the one cache of store files, for the `/zarr` keys of plain stores
 * (and their fast path), thumbnails, NetCDF downloads, GeoParquet files and the content-addressed objects of
 * Icechunk repositories. Store versions are immutable once published (they appear by one rename and are never
 * written again), so a file's validators and, up to `maxFileBytes`, its content are read once and served
 * without touching the disk; larger files are streamed. Least recently used entries go first once `maxBytes`
 * is held. A path that does not exist is never cached: it may appear with the next version.
 *
 * An entry is keyed by its path alone: every path is served by one route, which always describes it the same
 * way (media type, ETag prefix), so the description given when the entry was made is the one every caller wants.
 */
export class ImmutableFileCache {
  readonly #entries: Lru<Entity>;
  readonly #maxFileBytes: number;

  constructor({ maxBytes = 128 << 20, maxFileBytes = 2 << 20 } = {}) {
    this.#entries = new Lru(maxBytes);
    this.#maxFileBytes = maxFileBytes;
  }

  /** The entity of `path` when it is in memory, found without waiting. */
  peek(path: string): Entity | undefined {
    return this.#entries.get(path);
  }

  /** The entity of the regular file at `path`, or undefined when there is none. */
  async entity(path: string, description: EntityDescription): Promise<Entity | undefined> {
    const hit = this.#entries.get(path);
    if (hit) return hit;
    const file = await readImmutableFile(path, this.#maxFileBytes);
    if (!file) return undefined;
    const entity = fileEntity(path, file, description);
    this.#entries.set(path, entity, (file.bytes?.length ?? 0) + ENTRY_OVERHEAD_BYTES);
    return entity;
  }
}

/**
 * A regular file's size and time, and its content when it has at most `maxFileBytes`; undefined for no file. One
 * open, its `fstat` and one read of the whole size: a cold key is on a reader's path, and each step is a trip to
 * the thread pool. Non-blocking, so that opening a FIFO or device where a file was expected cannot hang.
 */
async function readImmutableFile(
  path: string,
  maxFileBytes: number,
): Promise<{ size: number; mtime: Date; bytes?: Buffer } | undefined> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    if (info.size > maxFileBytes) return { size: info.size, mtime: info.mtime };
    const bytes = Buffer.allocUnsafeSlow(info.size);
    let length = 0;
    while (length < bytes.length) {
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    // A published file never shrinks; should one end early, only what was read is served, and its size says so.
    return { size: length, mtime: info.mtime, bytes: length < bytes.length ? bytes.subarray(0, length) : bytes };
  } finally {
    await handle.close();
  }
}
