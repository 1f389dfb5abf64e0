/**
 * A batch job's log as openEO serves it (`GET /jobs/{id}/logs`): one JSON line per entry in the attempt's log file
 * (`jobLogPath`), appended by its worker (or the workers of its parts) only. Entry ids are the line numbers, so `offset` (the id of the last entry
 * a client has) is a position, and a reader that sees a line being written stops before it.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export const LOG_LEVELS = ['error', 'warning', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface JobLogEntry {
  id: string;
  level: LogLevel;
  message: string;
  time: string;
  code?: string;
  data?: unknown;
  /** The node of the process graph that wrote it, as openEO's `path`. */
  path?: { node_id: string; process_id?: string }[];
}

export interface JobLogWriter {
  write(entry: Omit<JobLogEntry, 'id' | 'time'>): Promise<void>;
}

/**
 * Appends entries to `file` in order, one write at a time. The parts of a split attempt append to one file at once:
 * each line is one append, so lines never interleave, and ids are given by position when the log is read.
 */
export function jobLogWriter(file: string, now: () => Date = () => new Date()): JobLogWriter {
  let last: Promise<void> = mkdir(dirname(file), { recursive: true }).then(() => undefined);
  return {
    write(entry) {
      const line = `${JSON.stringify({ time: now().toISOString(), ...entry })}\n`;
      last = last.then(() => appendFile(file, line));
      return last;
    },
  };
}

/** Levels at or above `level` in severity: `warning` shows warnings and errors. */
const shown = (level: LogLevel) => new Set(LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1));

/** Entries after `offset` at `level` or more severe, at most `limit`; and whether more follow. */
export async function readJobLog(
  file: string,
  { offset, level = 'debug', limit }: { offset?: string; level?: LogLevel; limit?: number },
): Promise<{ entries: JobLogEntry[]; more: boolean }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], more: false };
    throw err;
  }
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  const after = offset !== undefined && /^\d+$/.test(offset) ? Number(offset) : 0;
  const levels = shown(level);
  const entries = complete
    .split('\n')
    .filter(Boolean)
    .map((line, i) => ({ ...(JSON.parse(line) as Omit<JobLogEntry, 'id'>), id: String(i + 1) }))
    .filter((entry) => Number(entry.id) > after && levels.has(entry.level));
  return limit === undefined
    ? { entries, more: false }
    : { entries: entries.slice(0, limit), more: entries.length > limit };
}
