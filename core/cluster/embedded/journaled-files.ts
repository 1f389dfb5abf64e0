import type { KindRef } from '../objects.ts';
import { writeCheckpoint, type CheckpointEntry } from './checkpoint.ts';
import { kindKey, type ObjectKey, type ResourceFiles } from './files.ts';
import { Journal } from './journal.ts';

/**
 * The embedded store's durable state: the object files, and the journal in front of them
 * ([adr/0011](../../../docs/adr/0011-the-embedded-store-writes-ahead-to-a-journal.md)). Groups of changes are
 * appended to the journal; the store reports each change once it is published, and checkpoints write the last
 * published text of every changed object to its file, then drop the segments they cover.
 */
export class JournaledFiles {
  readonly #files: ResourceFiles;
  readonly #segmentBytes: number;
  #journal: Journal | undefined;
  /** Objects changed since the last checkpoint began, with their last published text (none: deleted). */
  #changed = new Map<string, CheckpointEntry>();
  /** The resourceVersion of the last change reported. */
  #rv = 0;
  /** The checkpoint under way, and why writing stopped once one failed. */
  #checkpointing: Promise<void> | undefined;
  #failure: unknown;
  #closing: Promise<void> | undefined;

  constructor(files: ResourceFiles, segmentBytes: number) {
    this.#files = files;
    this.#segmentBytes = segmentBytes;
  }

  /** A published change: the next checkpoint writes this text (or removes the file) for the object. */
  changed(ref: KindRef, { namespace, name }: ObjectKey, text: string | undefined, rv: number): void {
    const key = namespace === undefined ? { name } : { namespace, name };
    this.#changed.set(`${kindKey(ref)}/${namespace ?? ''}/${name}`, { ref, key, text });
    this.#rv = rv;
  }

  /**
   * Starts the journal after the segments replayed at open (up to `last`); what they held is checkpointed first,
   * so that the new journal starts empty and a crash meanwhile replays them again.
   */
  async start(last: number): Promise<void> {
    if (this.#changed.size > 0) await writeCheckpoint(this.#files, this.#take(), this.#rv);
    this.#journal = await Journal.start(this.#files.journalDir, last, this.#segmentBytes);
  }

  /**
   * A group commit's durable step: its frames appended with one flush. Before it, a full segment is sealed and
   * checkpointed in the background (one checkpoint at a time; the segment grows past its size meanwhile, up to a
   * bound where appends wait). Groups are appended one after another, so every change in the sealed segment has
   * been published by then.
   */
  async append(frames: readonly Buffer[]): Promise<void> {
    const journal = this.#started();
    while (journal.overfull && this.#checkpointing) await this.#checkpointing;
    if (this.#failure) throw this.#failure;
    if (journal.full && !this.#checkpointing) {
      const sealed = await journal.seal();
      const entries = this.#take();
      this.#checkpointing = writeCheckpoint(this.#files, entries, this.#rv)
        .then(() => journal.removeThrough(sealed))
        .catch((err: unknown) => {
          this.#failure = err;
        })
        .finally(() => {
          this.#checkpointing = undefined;
        });
    }
    await journal.append(frames);
  }

  /**
   * Checkpoints everything and closes the journal, so that a data directory closed cleanly has every object in its
   * file; after a failed write (`healthy` false) the journal is left to replay.
   */
  close(healthy: boolean): Promise<void> {
    this.#closing ??= this.#close(healthy);
    return this.#closing;
  }

  async #close(healthy: boolean): Promise<void> {
    const journal = this.#started();
    await this.#checkpointing;
    let checkpointed = false;
    try {
      if (healthy && !this.#failure) {
        await writeCheckpoint(this.#files, this.#take(), this.#rv);
        checkpointed = true;
      }
    } finally {
      await journal.close(checkpointed);
    }
  }

  #take(): CheckpointEntry[] {
    const entries = [...this.#changed.values()];
    this.#changed = new Map();
    return entries;
  }

  #started(): Journal {
    if (!this.#journal) throw new Error('the embedded store was used before it was opened');
    return this.#journal;
  }
}
