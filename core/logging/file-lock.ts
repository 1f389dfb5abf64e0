import { randomBytes } from 'node:crypto';
import { mkdirSync, readlinkSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { isProcessAlive } from '../process/alive.ts';

/**
 * A lock shared by every process that writes one file, on the same host or not: a symbolic link created beside
 * it. Creating a link is atomic and fails when one exists (on local file systems and NFS alike), it holds its
 * owner in its target (`host:pid:time:nonce`) without writing a data block, and it costs about as much as a
 * `stat`. Node has no `flock`, and an advisory lock would not be seen by a process on another node anyway.
 *
 * A holder that died leaves its link behind. It is taken over when its process is gone (same host) or when it is
 * older than `staleMs` (another host, whose processes this one cannot see); holders keep it for a few system
 * calls, so a link that old belongs to a process that was killed or stopped.
 */
export class FileLock {
  readonly path: string;
  readonly #staleMs: number;
  readonly #host = hostname();
  #token: string | undefined;
  #acquiredAt = 0;

  constructor(path: string, staleMs = 5_000) {
    this.path = path;
    this.#staleMs = staleMs;
  }

  /** Takes the lock if it is free, or takes over a stale one; false when a live holder has it. */
  tryAcquire(): boolean {
    const now = Date.now();
    const token = `${this.#host}:${process.pid}:${now}:${++sequence}`;
    try {
      symlinkSync(token, this.path);
      this.#token = token;
      this.#acquiredAt = now;
      return true;
    } catch (err) {
      const { code } = err as NodeJS.ErrnoException;
      // The directory went away (removed by hand): it is made again, and the next attempt takes the lock.
      if (code === 'ENOENT') mkdirSync(dirname(this.path), { recursive: true });
      else if (code !== 'EEXIST') throw err;
    }
    const holder = this.#holder();
    if (holder !== undefined && this.#isStale(holder)) this.#breakStale(holder);
    return false;
  }

  /**
   * Takes the lock, waiting for a live holder for at most `waitMs` (blocking: a holder keeps it for microseconds).
   * False when the wait ran out.
   */
  acquire(waitMs: number): boolean {
    const deadline = Date.now() + waitMs;
    for (let pause = 0.05; ; pause = Math.min(pause * 2, 5)) {
      if (this.tryAcquire()) return true;
      if (Date.now() >= deadline) return false;
      sleepSync(pause);
    }
  }

  /**
   * Gives the lock up, unless it was taken over meanwhile (then it is the new holder's to give up). Only a lock held
   * long enough to be judged stale by its age can have been taken over, so only then is the link read first.
   */
  release(): void {
    const token = this.#token;
    this.#token = undefined;
    if (token === undefined) return;
    if (Date.now() - this.#acquiredAt >= this.#staleMs / 2 && this.#holder() !== token) return;
    try {
      unlinkSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  #holder(): string | undefined {
    try {
      return readlinkSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  #isStale(holder: string): boolean {
    const [host, pid, time] = holder.split(':');
    const at = Number(time);
    if (!Number.isFinite(at) || Date.now() - at > this.#staleMs) return true;
    // This process holds a lock only within one synchronous call, so a link of its own is left over.
    return host === this.#host && (Number(pid) === process.pid || !isProcessAlive(Number(pid)));
  }

  /**
   * Moves a stale link aside under a name of its own, so that of several processes breaking it at once exactly one
   * succeeds (the others find it gone), and removes it. Taking the lock is left to the next attempt. When the link
   * moved is not the stale one (another process broke that and took the lock in between), it is put back.
   */
  #breakStale(holder: string): void {
    const aside = `${this.path}.stale-${randomBytes(6).toString('hex')}`;
    try {
      renameSync(this.path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const moved = readlinkSync(aside);
    unlinkSync(aside);
    if (moved === holder) return;
    try {
      symlinkSync(moved, this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Tells this process's tokens apart. */
let sequence = 0;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` milliseconds (fractions allowed). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
