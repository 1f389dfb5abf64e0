import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  discardPrepared,
  finishFileChanges,
  isTempName,
  prepareFileChange,
  writeFileAtomic,
  type PreparedChange,
} from '../../files/durable.ts';
import type { KindRef, KubeObject } from '../objects.ts';
import { isSecretKind } from './secrets.ts';

/** Every `.json` file under `root`; temporary files left by a crash are removed, not loaded. */
async function loadJsonFiles(root: string): Promise<{ path: string; value: unknown }[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const files: { path: string; value: unknown }[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (isTempName(entry.name)) await rm(path, { force: true });
    else if (entry.name.endsWith('.json')) files.push({ path, value: JSON.parse(await readFile(path, 'utf8')) });
  }
  return files;
}

/** Where an object lives in its kind. */
export interface ObjectKey {
  namespace?: string;
  name: string;
}

export const kindKey = (ref: KindRef) => `${ref.apiVersion}/${ref.plural}`;

/**
 * The embedded cluster's files under its data directory, each written atomically:
 *   kinds/<apiVersion/plural>.json                      every kind ever written (the garbage collector searches them)
 *   state/counter.json                                  the last resourceVersion the last checkpoint covers
 *   resources/<group>/<version>/<plural>/<ns>/<name>.json  one object each (`_cluster` for cluster-scoped kinds)
 *   journal/<sequence>.wal                              the changes not yet checkpointed (`journal.ts`)
 *   owner.pid                                           the process that has the store open (`owner-lock.ts`)
 */
export class ResourceFiles {
  readonly #dir: string;

  constructor(dataDir: string) {
    this.#dir = dataDir;
  }

  #kindDir(ref: KindRef): string {
    const [group, version] = ref.apiVersion.includes('/') ? ref.apiVersion.split('/') : ['core', ref.apiVersion];
    return join(this.#dir, 'resources', group!, version!, ref.plural);
  }

  #objectPath(ref: KindRef, { namespace, name }: ObjectKey): string {
    return join(this.#kindDir(ref), namespace ?? '_cluster', `${name}.json`);
  }

  /** Where the write-ahead log's segments live. */
  get journalDir(): string {
    return join(this.#dir, 'journal');
  }

  async kinds(): Promise<KindRef[]> {
    return (await loadJsonFiles(join(this.#dir, 'kinds'))).map(({ value }) => value as KindRef);
  }

  async writeKind(ref: KindRef): Promise<void> {
    await writeFileAtomic(join(this.#dir, 'kinds', `${encodeURIComponent(kindKey(ref))}.json`), JSON.stringify(ref));
  }

  /** The last resourceVersion the last checkpoint covered, 0 before the first. */
  async counter(): Promise<number> {
    const counter = (await loadJsonFiles(join(this.#dir, 'state'))).find((f) => f.path.endsWith('counter.json'));
    return Number((counter?.value as { resourceVersion?: string } | undefined)?.resourceVersion ?? 0);
  }

  async objects(ref: KindRef): Promise<KubeObject[]> {
    return (await loadJsonFiles(this.#kindDir(ref))).map(({ value }) => value as KubeObject);
  }

  /** Records the last resourceVersion a checkpoint covers: it stays once the newest object is deleted. */
  writeCounter(rv: number): Promise<void> {
    return writeFileAtomic(join(this.#dir, 'state', 'counter.json'), JSON.stringify({ resourceVersion: String(rv) }));
  }

  /**
   * The first half of bringing an object's file up to date (a checkpoint writes many at once): its text flushed
   * beside its file, or nothing to prepare for a deletion. Secrets are readable by this process's user only, as
   * etcd's data is by the API server's.
   */
  async prepare(ref: KindRef, meta: ObjectKey, text: string | undefined): Promise<PreparedChange> {
    const path = this.#objectPath(ref, meta);
    if (text === undefined) return { path };
    return prepareFileChange({ path, data: text, ...(isSecretKind(ref) && { mode: 0o600 }) });
  }

  /** The second half, for a run of prepared changes in order: in place, each directory flushed once. */
  finish(run: readonly PreparedChange[]): Promise<void> {
    return finishFileChanges(run);
  }

  discard(prepared: readonly PreparedChange[]): Promise<void> {
    return discardPrepared(prepared);
  }
}
