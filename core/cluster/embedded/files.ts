import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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

/** One change of an object, staged for the next group commit: its new text, or none for a deletion. */
export interface StagedChange {
  ref: KindRef;
  object: KubeObject;
  text?: string;
  rv: number;
}

export const kindKey = (ref: KindRef) => `${ref.apiVersion}/${ref.plural}`;

/**
 * The embedded cluster's files under its data directory, each written atomically:
 *   kinds/<apiVersion/plural>.json                      every kind ever written (the garbage collector searches them)
 *   state/counter.json                                  the resourceVersion of the last deletion
 *   resources/<group>/<version>/<plural>/<ns>/<name>.json  one object each (`_cluster` for cluster-scoped kinds)
 */
export class ResourceFiles {
  readonly #dir: string;
  /** The directories made (or being made) by this process: the cluster never removes one, so once is enough. */
  readonly #made = new Map<string, Promise<void>>();

  constructor(dataDir: string) {
    this.#dir = dataDir;
  }

  #kindDir(ref: KindRef): string {
    const [group, version] = ref.apiVersion.includes('/') ? ref.apiVersion.split('/') : ['core', ref.apiVersion];
    return join(this.#dir, 'resources', group!, version!, ref.plural);
  }

  #objectPath(ref: KindRef, { namespace, name }: KubeObject['metadata']): string {
    return join(this.#kindDir(ref), namespace ?? '_cluster', `${name}.json`);
  }

  async kinds(): Promise<KindRef[]> {
    return (await loadJsonFiles(join(this.#dir, 'kinds'))).map(({ value }) => value as KindRef);
  }

  async writeKind(ref: KindRef): Promise<void> {
    await writeFileAtomic(join(this.#dir, 'kinds', `${encodeURIComponent(kindKey(ref))}.json`), JSON.stringify(ref));
  }

  /** The resourceVersion recorded by the last deletion, 0 when none. */
  async counter(): Promise<number> {
    const counter = (await loadJsonFiles(join(this.#dir, 'state'))).find((f) => f.path.endsWith('counter.json'));
    return Number((counter?.value as { resourceVersion?: string } | undefined)?.resourceVersion ?? 0);
  }

  async objects(ref: KindRef): Promise<KubeObject[]> {
    return (await loadJsonFiles(this.#kindDir(ref))).map(({ value }) => value as KubeObject);
  }

  /**
   * The first half of writing a change (a group commit's prepare): the object's new text flushed beside its file,
   * or, for a deletion, the resourceVersion it happened at flushed beside the counter, which keeps it once the
   * newest object is gone. Secrets are readable by this process's user only, as etcd's data is by the API server's.
   */
  async prepare(change: StagedChange): Promise<PreparedChange[]> {
    const path = this.#objectPath(change.ref, change.object.metadata);
    if (change.text !== undefined) {
      await this.#directory(dirname(path));
      return [await prepareFileChange({ path, data: change.text, ...(isSecretKind(change.ref) && { mode: 0o600 }) })];
    }
    const counter = join(this.#dir, 'state', 'counter.json');
    await this.#directory(dirname(counter));
    return [
      await prepareFileChange({ path: counter, data: JSON.stringify({ resourceVersion: String(change.rv) }) }),
      { path },
    ];
  }

  #directory(dir: string): Promise<void> {
    let made = this.#made.get(dir);
    if (!made) {
      made = mkdir(dir, { recursive: true }).then(() => undefined);
      // A failure is the write's to report; the next write tries again.
      made.catch(() => this.#made.delete(dir));
      this.#made.set(dir, made);
    }
    return made;
  }

  /** The second half, for a run of prepared changes in order: in place, each directory flushed once. */
  finish(run: readonly PreparedChange[][]): Promise<void> {
    return finishFileChanges(run.flat());
  }

  discard(prepared: readonly PreparedChange[][]): Promise<void> {
    return discardPrepared(prepared.flat());
  }
}
