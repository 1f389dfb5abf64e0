import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImmutableFileCache } from './file-cache.ts';

describe('ImmutableFileCache', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-file-cache-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('never remembers a missing file, so a file that appears later is served', async () => {
    const cache = new ImmutableFileCache();
    expect(await cache.get(join(dir, 'a'))).toBeUndefined();
    await writeFile(join(dir, 'a'), 'hello');
    expect((await cache.get(join(dir, 'a')))?.bytes?.toString()).toBe('hello');
    expect(await cache.get(dir)).toBeUndefined();
  });

  it('keeps the content of small files only, and evicts the least recently used past its budget', async () => {
    const cache = new ImmutableFileCache({ maxBytes: 10, maxFileBytes: 6 });
    for (const [name, text] of [
      ['a', 'aaaaa'],
      ['b', 'bbbbb'],
      ['big', 'bbbbbbbbbb'],
    ])
      await writeFile(join(dir, name), text);
    expect((await cache.get(join(dir, 'big')))?.bytes).toBeUndefined();
    expect((await cache.get(join(dir, 'big')))?.size).toBe(10);
    await cache.get(join(dir, 'a'));
    await cache.get(join(dir, 'b'));
    await cache.get(join(dir, 'a'));
    // A third small file exceeds 10 bytes: b, the least recently used, goes; a stays (its bytes are still served).
    await writeFile(join(dir, 'c'), 'ccccc');
    await cache.get(join(dir, 'c'));
    await writeFile(join(dir, 'a'), 'AAAAA');
    await writeFile(join(dir, 'b'), 'BBBBB');
    expect((await cache.get(join(dir, 'a')))?.bytes?.toString()).toBe('aaaaa');
    expect((await cache.get(join(dir, 'b')))?.bytes?.toString()).toBe('BBBBB');
  });
});
