/**
 * The changelog of an export (spec 3, DESIGN.md §6): one entry per value a delivery created, updated or deleted at
 * the target, appended to `changelog.jsonl` next to the export and never rewritten. An entry names its delivery
 * and chunk, so an attempt that resumes a delivery records a chunk's entries once.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { CheckpointChunk } from './checkpoint.ts';
import { DEFAULT_COMBO, sameValue, valueKey, type DataValue } from './payload.ts';

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

/** Who a delivery's entries name: the delivery, its user and (for a tracker target) the event program. */
export interface ChangelogAuthor {
  delivery: string;
  user: string;
  program?: { uid: string };
}

/** The changelog entries of a chunk's values, from what the target held before and whether each was applied. */
export function entriesOf(
  input: ChangelogAuthor,
  chunk: CheckpointChunk,
  applied: (value: DataValue, index: number) => boolean,
  now: string,
): ChangelogEntry[] {
  const entries: ChangelogEntry[] = [];
  chunk.values.forEach((v, i) => {
    if (!applied(v, i)) return;
    const previous = chunk.previous?.[valueKey(v)];
    const type =
      chunk.strategy === 'DELETE'
        ? previous === undefined
          ? undefined
          : 'DELETE'
        : previous === undefined
          ? 'CREATE'
          : sameValue(previous, v.value)
            ? undefined
            : 'UPDATE';
    if (!type) return;
    entries.push({
      type,
      dataElement: v.dataElement,
      period: v.period,
      orgUnit: v.orgUnit,
      categoryOptionCombo: v.categoryOptionCombo ?? DEFAULT_COMBO,
      attributeOptionCombo: v.attributeOptionCombo ?? DEFAULT_COMBO,
      previousValue: previous ?? null,
      value: type === 'DELETE' ? null : v.value,
      ...(input.program && { program: input.program.uid }),
      delivery: input.delivery,
      chunk: chunk.index,
      user: input.user,
      created: now,
    });
  });
  return entries;
}

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
