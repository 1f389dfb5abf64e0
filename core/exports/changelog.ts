/**
 * The changelog of an export (spec 3, DESIGN.md §6): one entry per value a delivery created, updated or deleted at
 * the target, appended to `changelog.jsonl` next to the export and never rewritten. An entry names its delivery
 * and chunk, so an attempt that resumes a delivery records a chunk's entries once.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';

export const changelogEntrySchema = z.object({
  type: z.enum(['CREATE', 'UPDATE', 'DELETE']),
  dataElement: z.string(),
  period: z.string(),
  orgUnit: z.string(),
  categoryOptionCombo: z.string(),
  attributeOptionCombo: z.string(),
  previousValue: z.string().nullable(),
  value: z.string().nullable(),
  /** The event program of a tracker target's entry (its event is the org unit and period's). */
  program: z.string().optional(),
  delivery: z.string(),
  chunk: z.number().int(),
  user: z.string(),
  created: z.string(),
});

export type ChangelogEntry = z.infer<typeof changelogEntrySchema>;

/** Appends entries in one write, flushed before it returns. */
export async function appendChangelog(file: string, entries: ChangelogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await mkdir(dirname(file), { recursive: true });
  const handle = await open(file, 'a');
  try {
    await handle.write(entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Every complete entry, oldest first; a line being written (no newline yet) is left for the next read. */
export async function readChangelog(file: string): Promise<ChangelogEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ChangelogEntry);
}
