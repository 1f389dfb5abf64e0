import { readdir, readFile } from 'node:fs/promises';
import { RUN_CONTEXT_ENV, type RunContext } from '../../core/logging/settings.ts';

/** The entry point of worker processes, as it appears in their command line. */
const WORKER = 'operator/worker/main.ts';

/** Whether a process of this id is running (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The worker processes `parent` runs for the run `id`: its children that run the worker entry point with that run
 * in their run context (other runs' workers, such as an analytics table's build after a publish, are left alone).
 */
export async function workerPids(parent: number, id: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent || !(await readFile(`/proc/${entry}/cmdline`, 'utf8')).includes(WORKER)) continue;
      const context = (await readFile(`/proc/${entry}/environ`, 'utf8'))
        .split('\0')
        .find((line) => line.startsWith(`${RUN_CONTEXT_ENV}=`));
      if (context && (JSON.parse(context.slice(RUN_CONTEXT_ENV.length + 1)) as RunContext).run.endsWith(`/${id}`))
        pids.push(Number(entry));
    } catch {
      // The process ended while it was being read.
    }
  }
  return pids;
}
