import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface DirectoryEntry {
  name: string;
  type: 'file' | 'directory';
  /** Bytes, for files. */
  size?: number;
}

/**
 * The files and directories in `path`, by name, leaving out names `hidden` rejects; undefined when `path` is no
 * directory.
 */
export async function listDirectory(
  path: string,
  hidden: (name: string) => boolean = () => false,
): Promise<DirectoryEntry[] | undefined> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return undefined;
  return Promise.all(
    entries
      .filter((e) => (e.isFile() || e.isDirectory()) && !hidden(e.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map(async (e) =>
        e.isFile()
          ? { name: e.name, type: 'file' as const, size: (await stat(join(path, e.name))).size }
          : { name: e.name, type: 'directory' as const },
      ),
  );
}
