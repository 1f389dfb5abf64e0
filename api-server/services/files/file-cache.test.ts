import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENTRY_OVERHEAD_BYTES, ImmutableFileCache } from './file-cache.ts';

const described = { contentType: 'application/octet-stream', etagPrefix: 'v1' };

describe('ImmutableFileCache', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-file-cache-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const bytesOf = async (cache: ImmutableFileCache, name: string) =>
    Buffer.from((await cache.entity(join(dir, name), described))?.bytes ?? []).toString();

  it('never remembers a missing file, so a file that appears later is served', async () => {
    const cache = new ImmutableFileCache();
    expect(await cache.entity(join(dir, 'a'), described)).toBeUndefined();
    await writeFile(join(dir, 'a'), 'hello');
    expect(await bytesOf(cache, 'a')).toBe('hello');
    expect(cache.peek(join(dir, 'a'))?.etag).toMatch(/^"v1-5-/);
    expect(await cache.entity(dir, described)).toBeUndefined();
  });

  it('takes a FIFO where a file was expected for no file, without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    expect(await new ImmutableFileCache().entity(join(dir, 'pipe'), described)).toBeUndefined();
  });

  it('keeps the content of small files only, and evicts the least recently used past its budget', async () => {
    const cache = new ImmutableFileCache({ maxBytes: 2 * (5 + ENTRY_OVERHEAD_BYTES) + 4, maxFileBytes: 6 });
    for (const [name, text] of [
      ['a', 'aaaaa'],
      ['b', 'bbbbb'],
      ['big', 'bbbbbbbbbb'],
    ])
      await writeFile(join(dir, name), text);
    const big = await cache.entity(join(dir, 'big'), described);
    expect(big?.bytes).toBeUndefined();
    expect(big?.size).toBe(10);
    await bytesOf(cache, 'a');
    await bytesOf(cache, 'b');
    await bytesOf(cache, 'a');
    // A third small file passes the budget: big and b, the least recently used, go; a stays (its bytes are still served).
    await writeFile(join(dir, 'c'), 'ccccc');
    await bytesOf(cache, 'c');
    await writeFile(join(dir, 'a'), 'AAAAA');
    await writeFile(join(dir, 'b'), 'BBBBB');
    expect(cache.peek(join(dir, 'big'))).toBeUndefined();
    expect(await bytesOf(cache, 'a')).toBe('aaaaa');
    expect(await bytesOf(cache, 'b')).toBe('BBBBB');
  });
});
