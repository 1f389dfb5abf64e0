import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeSegment, encodeEntry, Journal, readJournal, type JournalEntry } from './journal.ts';

const put: JournalEntry = {
  kind: 'v1/secrets',
  namespace: 'default',
  name: 'a',
  rv: 7,
  text: '{"data":{"k":"dsOp"},"note":"line\\nbreak é"}',
};
const removal: JournalEntry = { kind: 'climate.stratus.dev/v1alpha1/datasets', name: 'b', rv: 8 };

describe('journal', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-journal-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('decodes what it encodes, deletions and cluster-scoped objects included', () => {
    const bytes = Buffer.concat([encodeEntry(put), encodeEntry(removal)]);
    expect(decodeSegment(bytes)).toEqual({ entries: [put, removal], damaged: false });
  });

  it('stops at a frame that is cut short, fails its check, or is a run of zeros', () => {
    const whole = encodeEntry(put);
    const cut = encodeEntry(removal).subarray(0, 12);
    expect(decodeSegment(Buffer.concat([whole, cut]))).toEqual({ entries: [put], damaged: true });
    const flipped = Buffer.from(encodeEntry(removal));
    flipped[flipped.length - 1]! ^= 1;
    expect(decodeSegment(Buffer.concat([whole, flipped]))).toEqual({ entries: [put], damaged: true });
    expect(decodeSegment(Buffer.concat([whole, Buffer.alloc(64)]))).toEqual({ entries: [put], damaged: true });
  });

  it('appends groups to a segment only its owner can read, seals it, and removes what was checkpointed', async () => {
    const journal = await Journal.start(dir, 0, 1);
    await journal.append([encodeEntry(put)]);
    expect(journal.full).toBe(true);
    expect((await stat(join(dir, '000000000001.wal'))).mode & 0o777).toBe(0o600);
    expect(await journal.seal()).toBe(1);
    await journal.append([encodeEntry(removal), encodeEntry({ ...removal, rv: 9 })]);
    expect(await readJournal(dir)).toEqual({ entries: [put, removal, { ...removal, rv: 9 }], last: 2 });
    await journal.removeThrough(1);
    expect(await readdir(dir)).toEqual(['000000000002.wal']);
    await journal.close(true);
    expect(await readdir(dir)).toEqual([]);
  });

  it('starts after the segments it was given, removing them', async () => {
    await writeFile(join(dir, '000000000004.wal'), encodeEntry(put));
    await writeFile(join(dir, 'notes.txt'), 'not a segment');
    const journal = await Journal.start(dir, 4, 1024);
    expect((await readdir(dir)).sort()).toEqual(['000000000005.wal', 'notes.txt']);
    await journal.close(false);
    expect((await readdir(dir)).sort()).toEqual(['000000000005.wal', 'notes.txt']);
  });
});
