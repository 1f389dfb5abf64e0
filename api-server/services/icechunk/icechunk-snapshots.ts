import type { Repository, Session } from '@earthmover/icechunk';
import { openRepository } from '../../../core/stores/icechunk/repository.ts';
import { icechunkStore, notAKey } from '../../../core/stores/icechunk/store.ts';
import { Lru } from '../../../core/cache/lru.ts';
import type { DirectoryEntry } from '../files/directory.ts';

interface OpenSnapshot {
  session: Session;
  writtenAt: Date;
}

export interface SnapshotKey {
  bytes: Uint8Array;
  writtenAt: Date;
}

/** Read sessions kept open at once; each holds the snapshot's manifests in Icechunk's own caches. */
const MAX_SESSIONS = 32;

/**
 * Reads the keys of Icechunk snapshots for the API server. A snapshot never changes, so its read session and the
 * bytes of its keys are cached: sessions by count, bytes by a byte budget.
 */
export class IcechunkSnapshots {
  readonly #repositories = new Map<string, Promise<Repository>>();
  readonly #sessions = new Lru<Promise<OpenSnapshot>>(MAX_SESSIONS);
  readonly #keys: Lru<Uint8Array>;
  readonly #maxKeyBytes: number;

  constructor({ maxBytes = 64 << 20, maxKeyBytes = 4 << 20 } = {}) {
    this.#keys = new Lru(maxBytes);
    this.#maxKeyBytes = maxKeyBytes;
  }

  #repository(dir: string): Promise<Repository> {
    let repository = this.#repositories.get(dir);
    if (!repository) {
      repository = openRepository(dir);
      this.#repositories.set(dir, repository);
      repository.catch(() => this.#repositories.delete(dir));
    }
    return repository;
  }

  #snapshot(dir: string, snapshotId: string): Promise<OpenSnapshot> {
    const id = `${dir}@${snapshotId}`;
    const held = this.#sessions.get(id);
    if (held) return held;
    const open = this.#repository(dir).then(async (repo) => ({
      session: await repo.readonlySession({ snapshotId }),
      writtenAt: new Date((await repo.lookupSnapshot(snapshotId)).writtenAt),
    }));
    this.#sessions.set(id, open);
    open.catch(() => this.#sessions.delete(id));
    return open;
  }

  /** The bytes of a Zarr key at a snapshot, or undefined when the snapshot has no such key. */
  async get(dir: string, snapshotId: string, key: string): Promise<SnapshotKey | undefined> {
    const { session, writtenAt } = await this.#snapshot(dir, snapshotId);
    const id = `${dir}@${snapshotId}/${key}`;
    const cached = this.#keys.get(id);
    if (cached) return { bytes: cached, writtenAt };
    const bytes = await icechunkStore(session.store).get(key);
    if (!bytes) return undefined;
    if (bytes.length <= this.#maxKeyBytes) this.#keys.set(id, bytes, bytes.length);
    return { bytes, writtenAt };
  }

  /** The children of a directory (`''` for the root) at a snapshot, or undefined when there is none. */
  async list(dir: string, snapshotId: string, prefix: string): Promise<DirectoryEntry[] | undefined> {
    const { session } = await this.#snapshot(dir, snapshotId);
    const names = await session.store.listDir(prefix);
    if (names.length === 0 && prefix !== '') return undefined;
    const base = prefix === '' ? '' : `${prefix}/`;
    return Promise.all(
      names.sort().map(async (name): Promise<DirectoryEntry> => {
        const key = `${base}${name}`;
        return (await session.store.exists(key).catch(notAKey))
          ? { name, type: 'file', size: await session.store.getsize(key) }
          : { name, type: 'directory' };
      }),
    );
  }
}
