import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const TEMP_SUFFIX = '.tmp';

/**
 * Writes `text` so that a crash leaves either the previous file or the new one, never a mix: write a temporary
 * file beside it, fsync it, rename it over the target, then fsync the directory so the rename itself is durable.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}${TEMP_SUFFIX}`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  await syncDirectory(dir);
}

export async function removeFileDurably(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncDirectory(dirname(path));
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

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
    if (entry.name.endsWith(TEMP_SUFFIX)) await rm(path, { force: true });
    else if (entry.name.endsWith('.json')) files.push({ path, value: JSON.parse(await readFile(path, 'utf8')) });
  }
  return files;
}
