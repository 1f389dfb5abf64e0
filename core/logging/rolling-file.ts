import {
  closeSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writevSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { FileLock } from './file-lock.ts';

export interface RollingFileOptions {
  /** A file rolls before a line would take it past this size (a line longer than it is written alone). */
  limitBytes: number;
  /** Archives kept: `x.log.1` (newest) to `x.log.<maxArchives>`; with 0 the file starts over empty. */
  maxArchives: number;
  /** When a lock left by a process of another host counts as abandoned. */
  lockStaleMs?: number;
  /** The least time between two writes of buffered lines (default `FLUSH_INTERVAL_MS`). */
  flushIntervalMs?: number;
}

/** Buffered lines are written at once past this many bytes, instead of at the end of the event loop's turn. */
const FLUSH_BYTES = 256 * 1024;
/**
 * After a write, the lines of the next turns wait this long to be written together. Each write takes the lock (a
 * link created and removed: two metadata changes of the file system's journal, which wait behind any `fsync` of
 * the disk under way), so a busy server writing one line per turn would pay that per request.
 */
const FLUSH_INTERVAL_MS = 10;
/** A flush at the end of a turn waits this long for the lock; the lines wait for the next try otherwise. */
const TURN_WAIT_MS = 20;
const RETRY_MS = 20;

/** Files still open; the process writes their buffered lines and gives their locks up as it exits. */
const open = new Set<RollingFile>();
process.on('exit', () => {
  for (const file of open) file.close();
});

/**
 * An append-only log file that rolls by size, written by any number of processes at once (the API server, the
 * operator and the workers of one installation): each process holds its own `RollingFile` on the same path.
 *
 * - Lines are buffered for the rest of the event loop's turn, then written under the file's lock (file-lock.ts)
 *   by one `writev` on a descriptor opened with O_APPEND: whole lines, never interleaved with another process's.
 *   Writes are at least `flushIntervalMs` apart: a line that comes soon after a write waits for the next one.
 * - Under the lock the writer finds the file by its path: when its descriptor is no longer the file at the path
 *   (another writer rolled it), it opens the new one. So no line goes to an archive after it was rolled, and a
 *   size read under the lock is exact: no file grows past the limit.
 * - A roll renames `x.log.<n>` to `x.log.<n+1>` (dropping what passes `maxArchives`) and `x.log` to `x.log.1`,
 *   then starts a new `x.log`. With no archives, the file is truncated.
 * - Lines buffered when the process exits are written by an `exit` handler; a process killed outright (SIGKILL)
 *   loses the lines of its last turn, which pino's own asynchronous destinations would lose too.
 */
export class RollingFile {
  readonly path: string;
  readonly #limit: number;
  readonly #maxArchives: number;
  readonly #lock: FileLock;
  readonly #lockStaleMs: number;
  readonly #flushIntervalMs: number;
  /** When the buffered lines were last written (`performance.now()`), so the next write waits its interval. */
  #flushedAt = -Infinity;
  #fd: number | undefined;
  #ino = -1;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #scheduled: NodeJS.Immediate | NodeJS.Timeout | undefined;
  #failure: string | undefined;
  #closed = false;

  /** Opens (creating) the file now, so that a directory that cannot be written fails at startup. */
  constructor(path: string, options: RollingFileOptions) {
    this.path = path;
    this.#limit = options.limitBytes;
    this.#maxArchives = options.maxArchives;
    this.#lockStaleMs = options.lockStaleMs ?? 5_000;
    this.#flushIntervalMs = options.flushIntervalMs ?? FLUSH_INTERVAL_MS;
    this.#lock = new FileLock(join(dirname(path), `.${basename(path)}.lock`), this.#lockStaleMs);
    this.#open();
    open.add(this);
  }

  /** Buffers one line (or several whole ones), as pino's destinations are written; after `close`, drops it. */
  write(line: string): boolean {
    if (this.#closed) return true;
    const bytes = Buffer.from(line);
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes >= FLUSH_BYTES) this.flushSync();
    else this.#scheduled ??= this.#schedule();
    return true;
  }

  /** Writes every buffered line now, waiting for the lock as long as a holder may keep it. */
  flushSync(): void {
    this.#unschedule();
    this.#flush(this.#lockStaleMs + 1_000);
  }

  close(): void {
    this.flushSync();
    this.#closed = true;
    open.delete(this);
    this.#lock.dispose();
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #unschedule(): void {
    if (this.#scheduled === undefined) return;
    clearImmediate(this.#scheduled as NodeJS.Immediate);
    clearTimeout(this.#scheduled as NodeJS.Timeout);
    this.#scheduled = undefined;
  }

  /** At the end of this turn, or when the interval since the last write has passed if that is later. */
  #schedule(): NodeJS.Immediate | NodeJS.Timeout {
    const wait = this.#flushedAt + this.#flushIntervalMs - performance.now();
    return wait > 0 ? setTimeout(() => this.#flushTurn(), wait).unref() : setImmediate(() => this.#flushTurn()).unref();
  }

  /** The end-of-turn flush: a busy lock makes the lines wait for a later try rather than block the process. */
  #flushTurn(): void {
    this.#scheduled = undefined;
    if (!this.#flush(TURN_WAIT_MS)) this.#scheduled = setTimeout(() => this.#flushTurn(), RETRY_MS).unref();
  }

  /** Writes the buffered lines under the lock; false when the lock stayed busy for `waitMs`. */
  #flush(waitMs: number): boolean {
    if (this.#pending.length === 0) return true;
    let locked = false;
    try {
      locked = this.#lock.acquire(waitMs);
      if (!locked) return false;
      this.#append(this.#pending);
      this.#failure = undefined;
    } catch (err) {
      // Logging must not take the process down: the lines are dropped, and the reason said once per failure.
      const failure = `${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
      if (failure !== this.#failure) process.stderr.write(`stratus: cannot write ${this.path}: ${failure}\n`);
      this.#failure = failure;
    } finally {
      if (locked) this.#lock.release();
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#flushedAt = performance.now();
    return true;
  }

  /** Under the lock: appends the lines to the file at the path, rolling it whenever the next line would not fit. */
  #append(lines: Buffer[]): void {
    let size = this.#currentSize();
    let batch: Buffer[] = [];
    let batchBytes = 0;
    for (const line of lines) {
      if (size + batchBytes > 0 && size + batchBytes + line.length > this.#limit) {
        this.#writeAll(batch);
        this.#roll();
        size = 0;
        batch = [];
        batchBytes = 0;
      }
      batch.push(line);
      batchBytes += line.length;
    }
    this.#writeAll(batch);
  }

  /** The size of the file at the path, after opening it when it is not the one this writer has open. */
  #currentSize(): number {
    let stats;
    try {
      stats = statSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (stats?.ino === this.#ino && this.#fd !== undefined) return stats.size;
    return this.#open();
  }

  /** Opens the file at the path (creating it and its directory), closing the previous one; returns its size. */
  #open(): number {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    mkdirSync(dirname(this.path), { recursive: true });
    this.#fd = openSync(this.path, 'a');
    const stats = fstatSync(this.#fd);
    this.#ino = stats.ino;
    return stats.size;
  }

  #writeAll(buffers: Buffer[]): void {
    let rest = buffers;
    while (rest.length > 0) {
      // A regular file takes the whole vector unless the disk is full, which throws; a short write is finished.
      let written = writevSync(this.#fd!, rest);
      const next: Buffer[] = [];
      for (const buffer of rest) {
        if (written >= buffer.length) written -= buffer.length;
        else {
          next.push(buffer.subarray(written));
          written = 0;
        }
      }
      rest = next;
    }
  }

  #roll(): void {
    this.#dropArchivesFrom(this.#maxArchives + 1);
    if (this.#maxArchives === 0) {
      ftruncateSync(this.#fd!, 0);
      return;
    }
    for (let n = this.#maxArchives - 1; n >= 1; n--) renameIfPresent(`${this.path}.${n}`, `${this.path}.${n + 1}`);
    renameSync(this.path, `${this.path}.1`);
    this.#open();
  }

  /** Removes `x.log.<n>` for every n from `first` on: the one a roll pushes out, and any a larger setting left. */
  #dropArchivesFrom(first: number): void {
    const prefix = `${basename(this.path)}.`;
    for (const name of readdirSync(dirname(this.path))) {
      if (!name.startsWith(prefix)) continue;
      const n = name.slice(prefix.length);
      if (/^\d+$/.test(n) && Number(n) >= first) rmSync(join(dirname(this.path), name), { force: true });
    }
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
