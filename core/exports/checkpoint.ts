/**
 * A delivery's checkpoint: the chunks it sends, fixed when its first attempt prepared them, and each chunk's
 * outcome, rewritten whole (write-then-rename) before and after every request. A later attempt resumes from it:
 * a chunk left `sending` or `polling` by a killed worker is never sent again (its outcome is unknown, or its task
 * is polled), so nothing reaches the target twice. The Delivery's status mirrors it (`status.chunks`).
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../files/durable.ts';
import {
  chunkOutcome,
  importCountSchema,
  type DeliveryChunk,
  type DeliveryReport,
  type ImportCount,
} from '../resources/delivery/schema.ts';
import { dataValueSchema } from './payload.ts';

const conflictRecord = z.object({
  object: z.string(),
  value: z.string(),
  errorCode: z.string().optional(),
  indexes: z.array(z.number().int()),
});

export const checkpointChunkSchema = z.object({
  index: z.number().int(),
  strategy: z.enum(['CREATE_AND_UPDATE', 'DELETE']),
  values: z.array(dataValueSchema),
  /** The target's values of the chunk's keys just before it was sent (key to value), for the changelog. */
  previous: z.record(z.string(), z.string()).optional(),
  outcome: chunkOutcome,
  tries: z.number().int(),
  importCount: importCountSchema.optional(),
  conflicts: z.array(conflictRecord).optional(),
  task: z.string().optional(),
  message: z.string().optional(),
  readBack: z.object({ applied: z.number().int(), missing: z.number().int() }).optional(),
  /** Whether the chunk's changelog entries were recorded. */
  logged: z.boolean().optional(),
});

export const checkpointSchema = z.object({
  delivery: z.string(),
  /** When the first attempt started, and the payload it read: the delivery's provenance. */
  startedAt: z.string().optional(),
  payload: z
    .object({ sha256: z.string(), size: z.number().int().min(0) })
    .optional()
    .describe('SHA-256 and size of the payload as read.'),
  values: z.number().int(),
  droppedPeriods: z.array(z.string()),
  chunks: z.array(checkpointChunkSchema),
  changelogEntries: z.number().int(),
});

export type Checkpoint = z.infer<typeof checkpointSchema>;
export type CheckpointChunk = z.infer<typeof checkpointChunkSchema>;

export async function readCheckpoint(file: string): Promise<Checkpoint | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return checkpointSchema.parse(JSON.parse(text));
}

export const writeCheckpoint = (file: string, checkpoint: Checkpoint) =>
  writeFileAtomic(file, JSON.stringify(checkpoint));

/** The chunks as the Delivery's status shows them: outcomes and counts, not values. */
export function chunkStatuses(checkpoint: Checkpoint): DeliveryChunk[] {
  return checkpoint.chunks.map((c) => ({
    index: c.index,
    values: c.values.length,
    strategy: c.strategy,
    outcome: c.outcome,
    tries: c.tries,
    ...(c.importCount && { importCount: c.importCount }),
    ...(c.conflicts && { conflicts: c.conflicts.reduce((n, x) => n + x.indexes.length, 0) }),
    ...(c.task && { task: c.task }),
    ...(c.message && { message: c.message }),
    ...(c.readBack && { readBack: c.readBack }),
  }));
}

/** What the delivery did, from its checkpoint. */
export function reportOf(checkpoint: Checkpoint, dryRun: boolean): DeliveryReport {
  const importCount: ImportCount = { imported: 0, updated: 0, ignored: 0, deleted: 0 };
  const conflicts = new Map<string, DeliveryReport['conflicts'][number]>();
  let unknownValues = 0;
  let failedValues = 0;
  for (const chunk of checkpoint.chunks) {
    if (chunk.importCount)
      for (const k of Object.keys(importCount) as (keyof ImportCount)[]) importCount[k] += chunk.importCount[k];
    for (const c of chunk.conflicts ?? []) {
      const key = `${c.object}|${c.errorCode ?? ''}`;
      const seen = conflicts.get(key);
      if (seen) seen.values += c.indexes.length;
      else
        conflicts.set(key, {
          object: c.object,
          value: c.value,
          ...(c.errorCode && { errorCode: c.errorCode }),
          values: c.indexes.length,
        });
    }
    if (chunk.outcome === 'unknown') unknownValues += chunk.values.length;
    if (chunk.outcome === 'failed') failedValues += chunk.values.length;
  }
  return {
    dryRun,
    values: checkpoint.values,
    importCount,
    conflicts: [...conflicts.values()],
    unknownValues,
    failedValues,
    droppedPeriods: checkpoint.droppedPeriods,
    changelogEntries: checkpoint.changelogEntries,
  };
}
