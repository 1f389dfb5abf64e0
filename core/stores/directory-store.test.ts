import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryStore } from './directory-store.ts';

const text = (bytes: Uint8Array | undefined) => bytes && Buffer.from(bytes).toString('utf8');

describe('directoryStore', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-directory-store-'));
    await mkdir(join(dir, 'value', 'c'), { recursive: true });
    await writeFile(join(dir, 'zarr.json'), '0123456789');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes keys as files under their path and reads them back', async () => {
    const store = directoryStore(dir);
    await store.set('value/c/0/1', new Uint8Array([1, 2, 3]));
    await store.set('lat/.zattrs', '{}');
    expect(Array.from((await store.get('value/c/0/1'))!)).toEqual([1, 2, 3]);
    expect(text(await store.get('lat/.zattrs'))).toBe('{}');
    expect((await readdir(join(dir, 'value', 'c', '0'))).sort()).toEqual(['1']);
  });

  it('reads a missing key, a directory, a path through a file and a key leaving the store as undefined', async () => {
    const store = directoryStore(dir);
    for (const key of ['nothing', 'value/c', 'zarr.json/x', '../outside', 'a//b', ''])
      expect(await store.get(key), key).toBeUndefined();
    expect(await store.getRange('nothing', { offset: 0, length: 1 })).toBeUndefined();
  });

  it('reads byte ranges: from an offset, and the last bytes', async () => {
    const store = directoryStore(dir);
    expect(text(await store.getRange('zarr.json', { offset: 2, length: 3 }))).toBe('234');
    expect(text(await store.getRange('zarr.json', { offset: 8, length: 5 }))).toBe('89');
    expect(text(await store.getRange('zarr.json', { suffixLength: 4 }))).toBe('6789');
    expect(text(await store.getRange('zarr.json', { suffixLength: 40 }))).toBe('0123456789');
  });

  it('refuses to write a key that would leave the store', async () => {
    const store = directoryStore(join(dir, 'inner'));
    await expect(store.set('../escape', 'x')).rejects.toThrow('not a store key');
    await expect(store.set('', 'x')).rejects.toThrow('not a store key');
    expect(await readdir(dir)).not.toContain('escape');
  });
});
