import type { KindRef } from '../objects.ts';
import type { ObjectKey, ResourceFiles } from './files.ts';

/** An object's file as a checkpoint writes it: its text when the checkpoint began, none when it was deleted. */
export interface CheckpointEntry {
  ref: KindRef;
  key: ObjectKey;
  text: string | undefined;
}

/** Files prepared at once: enough to keep libuv's pool of four threads busy, few enough to keep open. */
const BATCH = 64;

/**
 * Brings the object files up to date with the journal: each changed object's last text written atomically (or its
 * file removed), in batches with one flush per directory, then the counter. Only once this settles may the journal
 * segments it covers be removed; a crash before that replays them over the files on the next open.
 */
export async function writeCheckpoint(files: ResourceFiles, entries: readonly CheckpointEntry[], rv: number) {
  for (let start = 0; start < entries.length; start += BATCH) {
    const batch = entries.slice(start, start + BATCH);
    const settled = await Promise.allSettled(batch.map((e) => files.prepare(e.ref, e.key, e.text)));
    const prepared = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) {
      await files.discard(prepared);
      throw failed.reason;
    }
    await files.finish(prepared);
  }
  await files.writeCounter(rv);
}
