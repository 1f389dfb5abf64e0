import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isTempName } from '../../files/durable.ts';

/** Every `.json` file under `root`; temporary files left by a crash are removed, not loaded. */
export async function loadJsonFiles(root: string): Promise<{ path: string; value: unknown }[]> {
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
