import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  finishFileChanges,
  isTempName,
  prepareFileChange,
  replaceFile,
  TEMP_SUFFIX,
  writeFileAtomic,
} from './durable.ts';

describe('durable writes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-durable-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('replaces a file whole, creating its directory, and leaves nothing else behind', async () => {
    const path = join(dir, 'a', 'b', 'object.json');
    await writeFileAtomic(path, 'first');
    await writeFileAtomic(path, new Uint8Array([115, 101, 99, 111, 110, 100]));
    expect(await readFile(path, 'utf8')).toBe('second');
    expect(await readdir(dirname(path))).toEqual(['object.json']);
  });

  it('fills a hidden temporary file beside the target, whose name ends in the one temp suffix', async () => {
    const path = join(dir, 'data.nc');
    let seen = '';
    await replaceFile(path, async (temporary) => {
      seen = temporary;
      expect(await readdir(dir)).toEqual([]);
      await writeFile(temporary, 'bytes');
    });
    expect(dirname(seen)).toBe(dir);
    expect(basename(seen)).toMatch(/^\.data\.nc\.[0-9a-f]{12}-[0-9a-z]+\.stratus-tmp$/);
    expect(isTempName(basename(seen))).toBe(true);
    expect(seen.endsWith(TEMP_SUFFIX)).toBe(true);
    expect(await readdir(dir)).toEqual(['data.nc']);
  });

  it('keeps the previous file and removes the temporary one when filling fails', async () => {
    const path = join(dir, 'object.json');
    await writeFileAtomic(path, 'kept');
    const failed = replaceFile(path, async (temporary) => {
      await writeFile(temporary, 'torn');
      throw new Error('disk full');
    });
    await expect(failed).rejects.toThrow('disk full');
    expect(await readFile(path, 'utf8')).toBe('kept');
    expect(await readdir(dir)).toEqual(['object.json']);
  });

  it('puts a run of prepared changes in place in order: the later change of a file wins, removals remove', async () => {
    const [a, b, gone] = ['a.json', 'sub/b.json', 'gone.json'].map((name) => join(dir, name));
    await writeFileAtomic(gone!, 'old');
    const run = await Promise.all([
      prepareFileChange({ path: a!, data: 'first' }),
      prepareFileChange({ path: b!, data: 'made with its directory' }),
      prepareFileChange({ path: a!, data: 'second' }),
      prepareFileChange({ path: gone! }),
    ]);
    expect((await readdir(dir)).filter(isTempName)).toHaveLength(2);
    await finishFileChanges(run);
    expect(await readFile(a!, 'utf8')).toBe('second');
    expect(await readFile(b!, 'utf8')).toBe('made with its directory');
    expect((await readdir(dir)).sort()).toEqual(['a.json', 'sub']);
    expect(await readdir(dirname(b!))).toEqual(['b.json']);
  });
});
