/** CPU time of processes other than this one, from Linux's /proc, for benchmarks that compare servers' CPU. */
import { readFile, readlink } from 'node:fs/promises';

/** Linux's clock ticks per second (`getconf CLK_TCK`), the unit of /proc/PID/stat's times. */
const CLOCK_TICKS = 100;

/** User and system CPU seconds of process `pid` so far, to the clock tick. */
export async function cpuSecondsOf(pid: number): Promise<number> {
  // The fields after the command (which may hold spaces, so it is skipped up to its closing parenthesis).
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The processes `pid` started (from its main thread) that still run, each with the executable it runs. */
export async function childProcesses(pid: number): Promise<{ pid: number; executable: string }[]> {
  const listed = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  const children = listed.split(' ').filter(Boolean).map(Number);
  // One that ended since the listing has no executable any more, and is left out.
  const executables = await Promise.all(children.map((child) => readlink(`/proc/${child}/exe`).catch(() => '')));
  return children.map((child, i) => ({ pid: child, executable: executables[i]! })).filter((c) => c.executable);
}
