import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { isProcessAlive } from '../pid/alive.ts';

/**
 * A lock shared by every process that writes one file, on the same host or not: a hard link beside it, to a small
 * file of the holder's own (its owner file, `<lock>.<pid>.<nonce>`, holding `host:pid:nonce`). Creating a link is
 * atomic and fails when the name exists, on local file systems and NFS alike (the classic lock file of mail
 * spools). A hard link allocates no inode: a symbolic link does, and on ext4 the allocation of an inode among
 * recently freed ones cost a busy server more than the write the lock guards (measured in the history of
 * docs/performance.md, 2026-11-27).
 * Node has no `flock`, and an advisory lock would not be seen by a process on another node anyway.
 *
 * A holder that died leaves its link behind. It is taken over when its process is gone (same host) or when the
 * link is older than `staleMs` (another host, whose processes this one cannot see): the link's age is its inode's
 * change time, which linking sets. Holders keep it for a few system calls, so a link that old belongs to a
 * process that was killed or stopped. An owner file is removed by `dispose`; those that processes of this host
 * left when they were killed are swept when a lock on the same path is made.
 */
export class FileLock {
  readonly path: string;
  readonly #staleMs: number;
  readonly #host = hostname();
  readonly #token: string;
  readonly #ownerPath: string;
  #ownerMade = false;
  #held = false;
  #acquiredAt = 0;

  constructor(path: string, staleMs = 5_000) {
    this.path = path;
    this.#staleMs = staleMs;
    const nonce = randomBytes(4).toString('hex');
    this.#token = `${this.#host}:${process.pid}:${nonce}`;
    this.#ownerPath = ownerPathOf(path, process.pid, nonce);
    this.#sweepDeadOwners();
  }

  /** Takes the lock if it is free, or takes over a stale one; false when a live holder has it. */
  tryAcquire(): boolean {
    const now = Date.now();
    try {
      if (!this.#ownerMade) this.#makeOwner();
      linkSync(this.#ownerPath, this.path);
      this.#held = true;
      this.#acquiredAt = now;
      return true;
    } catch (err) {
      const { code } = err as NodeJS.ErrnoException;
      // The directory, or this process's owner file in it, went away (removed by hand): both are made again, and
      // the next attempt takes the lock.
      if (code === 'ENOENT') {
        this.#ownerMade = false;
        return false;
      }
      if (code !== 'EEXIST') throw err;
    }
    const holder = holderAt(this.path);
    if (holder !== undefined && this.#isStale(holder)) this.#breakStale(holder.token);
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
    if (!this.#held) return;
    this.#held = false;
    if (Date.now() - this.#acquiredAt >= this.#staleMs / 2 && holderAt(this.path)?.token !== this.#token) return;
    unlinkIfThere(this.path);
  }

  /** Removes this process's owner file; the lock makes it again if it is used after. */
  dispose(): void {
    if (!this.#ownerMade) return;
    this.#ownerMade = false;
    unlinkIfThere(this.#ownerPath);
  }

  #makeOwner(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(this.#ownerPath, this.#token);
    this.#ownerMade = true;
  }

  #isStale({ token, linkedAt }: Holder): boolean {
    const [host, pid] = token.split(':');
    if (!host || Date.now() - linkedAt > this.#staleMs) return true;
    // This process holds a lock only within one synchronous call, so a link of its own is left over.
    return host === this.#host && (Number(pid) === process.pid || !isProcessAlive(Number(pid)));
  }

  /**
   * Moves a stale link aside under a name of its own, so that of several processes breaking it at once exactly one
   * succeeds (the others find it gone), and removes it with the owner file of a dead process of this host. Taking
   * the lock is left to the next attempt. When the link moved is not the stale one (another process broke that and
   * took the lock in between), it is put back.
   */
  #breakStale(holder: string): void {
    const aside = `${this.path}.stale-${randomBytes(6).toString('hex')}`;
    try {
      renameSync(this.path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const moved = holderAt(aside)?.token;
    if (moved !== holder) {
      try {
        linkSync(aside, this.path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    unlinkSync(aside);
    const [host, pid, nonce] = holder.split(':');
    if (moved === holder && host === this.#host && Number(pid) !== process.pid)
      unlinkIfThere(ownerPathOf(this.path, pid!, nonce!));
  }

  /** Removes the owner files that processes of this host left when they were killed. */
  #sweepDeadOwners(): void {
    const prefix = `${basename(this.path)}.`;
    let names: string[];
    try {
      names = readdirSync(dirname(this.path));
    } catch {
      return;
    }
    for (const name of names) {
      const match = /^(\d+)\.[0-9a-f]+$/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : '');
      if (!match || isProcessAlive(Number(match[1]))) continue;
      const path = join(dirname(this.path), name);
      let token;
      try {
        token = readFileSync(path, 'utf8');
      } catch {
        continue;
      }
      if (token.startsWith(`${this.#host}:${match[1]}:`)) unlinkIfThere(path);
    }
  }
}

/** Where the process `pid` keeps the owner file it links as the lock at `lockPath`. */
function ownerPathOf(lockPath: string, pid: number | string, nonce: string): string {
  return `${lockPath}.${pid}.${nonce}`;
}

/** A lock's holder: its token, and when its link was made. */
interface Holder {
  token: string;
  linkedAt: number;
}

/**
 * The holder of the lock link at `path`, read through one descriptor so that both facts are of the same link. A
 * symbolic link is the lock as earlier versions of Stratus made it, left by a process of an earlier version: its target
 * is its token (`host:pid:time:n`), and its own change time when it was made.
 */
function holderAt(path: string): Holder | undefined {
  let fd;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const { code } = err as NodeJS.ErrnoException;
    if (code === 'ENOENT') return undefined;
    if (code !== 'ELOOP') throw err;
    try {
      return { token: readlinkSync(path), linkedAt: lstatSync(path).ctimeMs };
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw inner;
    }
  }
  try {
    const buffer = Buffer.alloc(512);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return { token: buffer.toString('utf8', 0, length), linkedAt: fstatSync(fd).ctimeMs };
  } finally {
    closeSync(fd);
  }
}

function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` milliseconds (fractions allowed). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
