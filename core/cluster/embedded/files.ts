import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isTempName, removeFileDurably, writeFileAtomic } from '../../files/durable.ts';
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

export const kindKey = (ref: KindRef) => `${ref.apiVersion}/${ref.plural}`;

/**
 * The embedded cluster's files under its data directory, each written atomically:
 *   kinds/<apiVersion/plural>.json                      every kind ever written (the garbage collector searches them)
 *   state/counter.json                                  the resourceVersion of the last deletion
 *   resources/<group>/<version>/<plural>/<ns>/<name>.json  one object each (`_cluster` for cluster-scoped kinds)
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

  async writeObject(ref: KindRef, object: KubeObject, text: string): Promise<void> {
    // Secrets are readable by this process's user only, as etcd's data is by the API server's.
    await writeFileAtomic(this.#objectPath(ref, object.metadata), text, isSecretKind(ref) ? 0o600 : undefined);
  }

  /** Removes an object deleted at `resourceVersion`, which the counter keeps once the newest object is gone. */
  async removeObject(ref: KindRef, object: KubeObject, resourceVersion: number): Promise<void> {
    await writeFileAtomic(
      join(this.#dir, 'state', 'counter.json'),
      JSON.stringify({ resourceVersion: String(resourceVersion) }),
    );
    await removeFileDurably(this.#objectPath(ref, object.metadata));
  }
}
