import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { datasyncFor, syncDirectory } from '../../files/durable.ts';

/**
 * The embedded cluster's write-ahead log: each group commit appends its changes to the active segment in one write
 * and makes them durable with one flush, where writing each object's file takes a new file, its flush, a rename and
 * a flush of its directory, several times the cost of an append and a flush (adr/0011).
 * The object files are brought up to date later, by a checkpoint, after which the segments it covers are removed.
 *
 * A segment is a sequence of frames: the payload's length and its CRC-32 (both 32-bit big-endian), then the payload,
 * a one-line JSON header and, unless the change is a deletion, the object's stored text. A crash while appending
 * can only tear the last frames of the last segment (a group is appended only once the one before it is flushed),
 * and those were never acknowledged: reading stops at the first frame that is short or fails its check there. The
 * same damage in an earlier segment is corruption, and opening fails rather than lose acknowledged writes.
 */

/** One change as logged: the object's kind, name and resourceVersion, and its new text (none: deleted). */
export interface JournalEntry {
  kind: string;
  namespace?: string;
  name: string;
  rv: number;
  text?: string;
}

interface EntryHeader {
  k: string;
  ns?: string;
  n: string;
  rv: number;
  d?: 1;
}

const FRAME_HEAD = 8;
/**
 * How many segments' worth the active one may grow to while a checkpoint runs: past it, writers wait, so that
 * writes faster than checkpoints cannot grow the journal (and the time to replay it at open) without bound.
 */
const OVERFULL_SEGMENTS = 4;
const SEGMENT_NAME = /^(\d{12})\.wal$/;
const segmentName = (sequence: number) => `${String(sequence).padStart(12, '0')}.wal`;

export function encodeEntry(entry: JournalEntry): Buffer {
  const header: EntryHeader = { k: entry.kind, n: entry.name, rv: entry.rv };
  if (entry.namespace !== undefined) header.ns = entry.namespace;
  if (entry.text === undefined) header.d = 1;
  const payload = Buffer.from(`${JSON.stringify(header)}\n${entry.text ?? ''}`);
  const frame = Buffer.allocUnsafe(FRAME_HEAD + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  frame.writeUInt32BE(crc32(payload), 4);
  payload.copy(frame, FRAME_HEAD);
  return frame;
}

/** The entries of one segment, up to the first damaged frame; `damaged` tells whether there was one. */
export function decodeSegment(bytes: Buffer): { entries: JournalEntry[]; damaged: boolean } {
  const entries: JournalEntry[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (bytes.length - at < FRAME_HEAD) return { entries, damaged: true };
    const length = bytes.readUInt32BE(at);
    const end = at + FRAME_HEAD + length;
    // A zero length is never written (every payload has a header) and is what a crash can leave in a grown file.
    if (length === 0 || end > bytes.length) return { entries, damaged: true };
    const payload = bytes.subarray(at + FRAME_HEAD, end);
    if (crc32(payload) !== bytes.readUInt32BE(at + 4)) return { entries, damaged: true };
    const text = payload.toString('utf8');
    const newline = text.indexOf('\n');
    const header = JSON.parse(text.slice(0, newline)) as EntryHeader;
    entries.push({
      kind: header.k,
      name: header.n,
      rv: header.rv,
      ...(header.ns !== undefined && { namespace: header.ns }),
      ...(header.d === undefined && { text: text.slice(newline + 1) }),
    });
    at = end;
  }
  return { entries, damaged: false };
}

async function segmentsIn(dir: string): Promise<number[]> {
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return names
    .map((name) => SEGMENT_NAME.exec(name)?.[1])
    .filter((sequence) => sequence !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** Every entry of the segments under `dir`, in the order they were appended, and the last segment's number. */
export async function readJournal(dir: string): Promise<{ entries: JournalEntry[]; last: number }> {
  const sequences = await segmentsIn(dir);
  const entries: JournalEntry[] = [];
  for (const [index, sequence] of sequences.entries()) {
    const decoded = decodeSegment(await readFile(join(dir, segmentName(sequence))));
    if (decoded.damaged && index < sequences.length - 1) {
      throw new Error(`the embedded store's journal segment ${segmentName(sequence)} is damaged before its end`);
    }
    entries.push(...decoded.entries);
  }
  return { entries, last: sequences.at(-1) ?? 0 };
}

/** The log being written: an active segment that groups are appended to, and the sealed ones before it. */
export class Journal {
  readonly #dir: string;
  readonly #segmentBytes: number;
  #sequence: number;
  #fd: number;
  #bytes = 0;

  private constructor(dir: string, sequence: number, fd: number, segmentBytes: number) {
    this.#dir = dir;
    this.#sequence = sequence;
    this.#fd = fd;
    this.#segmentBytes = segmentBytes;
  }

  /** Starts a new segment after `last`; the segments up to `last` must be checkpointed already. */
  static async start(dir: string, last: number, segmentBytes: number): Promise<Journal> {
    await mkdir(dir, { recursive: true });
    await removeSegmentsThrough(dir, last);
    const sequence = last + 1;
    return new Journal(dir, sequence, await createSegment(dir, sequence), segmentBytes);
  }

  /** Whether the active segment has reached its size and should be sealed at the next checkpoint. */
  get full(): boolean {
    return this.#bytes >= this.#segmentBytes;
  }

  /** Whether the active segment is so far past its size that appends should wait for the checkpoint under way. */
  get overfull(): boolean {
    return this.#bytes >= OVERFULL_SEGMENTS * this.#segmentBytes;
  }

  /** Appends a group's frames in one write and flushes them: they are durable when this settles. */
  async append(frames: readonly Buffer[]): Promise<void> {
    const bytes = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    // Into the page cache on this thread; only the flush waits on the disk, in libuv's pool.
    for (let written = 0; written < bytes.length;) written += writeSync(this.#fd, bytes, written);
    this.#bytes += bytes.length;
    await datasyncFor(this.#fd);
  }

  /** Seals the active segment and starts the next one; answers the sealed segment's number. */
  async seal(): Promise<number> {
    const sealed = this.#sequence;
    const fd = await createSegment(this.#dir, sealed + 1);
    closeSync(this.#fd);
    this.#fd = fd;
    this.#sequence = sealed + 1;
    this.#bytes = 0;
    return sealed;
  }

  /** Removes the segments up to `sequence`, once a checkpoint has written what they hold to the object files. */
  removeThrough(sequence: number): Promise<void> {
    return removeSegmentsThrough(this.#dir, sequence);
  }

  /** Closes the active segment; with `checkpointed`, everything is in the object files and it is removed too. */
  async close(checkpointed: boolean): Promise<void> {
    closeSync(this.#fd);
    if (checkpointed) await removeSegmentsThrough(this.#dir, this.#sequence);
  }
}

/** A new empty segment, its name made durable; readable by this process's user only, as it may hold Secrets. */
async function createSegment(dir: string, sequence: number): Promise<number> {
  const fd = openSync(join(dir, segmentName(sequence)), 'wx', 0o600);
  await syncDirectory(dir);
  return fd;
}

async function removeSegmentsThrough(dir: string, sequence: number): Promise<void> {
  const removed = (await segmentsIn(dir)).filter((s) => s <= sequence);
  for (const s of removed) await rm(join(dir, segmentName(s)), { force: true });
  if (removed.length > 0) await syncDirectory(dir);
}
