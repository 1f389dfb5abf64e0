import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isProcessAlive } from '../../pid/alive.ts';

/**
 * One process owns an embedded store's data directory at a time: a second one would replay and remove the first's
 * journal segments under it (ADR 0011), and the two would hand out the same resourceVersions. The owner writes
 * `owner.pid` (its process id and host) when it opens the directory and removes it when it closes, as PostgreSQL's
 * postmaster.pid does. A file left by a process that is gone (killed, or a container that restarted) is taken over;
 * one whose process still runs on this host, or that names another host, refuses the open with the file's path.
 */
const OWNER_FILE = 'owner.pid';

/** Another process (or this one) has the data directory open: the command line reports the message alone. */
export class StoreInUseError extends Error {}

/** Data directories open in this process: its own pid in the file cannot tell a second open from a stale file. */
const openHere = new Set<string>();

interface Owner {
  pid: number;
  host: string;
}

async function ownerOf(path: string): Promise<Owner | undefined> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (text === undefined) return undefined;
  const [pid, host = ''] = text.trim().split('\n');
  return { pid: Number(pid), host };
}

function refusal(dir: string, path: string, owner: Owner): StoreInUseError | undefined {
  if (owner.pid === process.pid) return undefined;
  if (owner.host !== hostname())
    return new StoreInUseError(
      `the embedded store in ${dir} is owned by process ${owner.pid} on host ${owner.host}; if no process uses it any more, remove ${path}`,
    );
  if (isProcessAlive(owner.pid))
    return new StoreInUseError(`the embedded store in ${dir} is open in process ${owner.pid}; stop it first`);
  return undefined;
}

/** Takes the data directory for this process; answers the release, which `close` calls. */
export async function acquireOwnerLock(dataDir: string): Promise<() => Promise<void>> {
  const dir = resolve(dataDir);
  const path = join(dir, OWNER_FILE);
  if (openHere.has(dir)) throw new StoreInUseError(`the embedded store in ${dir} is already open in this process`);
  openHere.add(dir);
  try {
    await mkdir(dir, { recursive: true });
    const content = `${process.pid}\n${hostname()}\n`;
    // Created exclusively, so that of two processes starting together one sees the other's file.
    const created = await writeFile(path, content, { flag: 'wx' }).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        throw err;
      },
    );
    if (!created) {
      const owner = await ownerOf(path);
      const refused = owner && refusal(dir, path, owner);
      if (refused) throw refused;
      await writeFile(path, content);
    }
  } catch (err) {
    openHere.delete(dir);
    throw err;
  }
  return async () => {
    openHere.delete(dir);
    await rm(path, { force: true });
  };
}
