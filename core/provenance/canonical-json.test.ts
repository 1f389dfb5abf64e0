import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalSha256 } from './canonical-json.ts';
import { directorySha256, sha256Hex, sha256Multihash } from './digest.ts';

describe('canonical JSON and digests', () => {
  it('writes members sorted by key at every depth, without whitespace, so member order does not change the digest', () => {
    const a = { b: 1, a: { d: [{ z: 1, y: 2 }], c: null }, u: undefined };
    const b = { a: { c: null, d: [{ y: 2, z: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
    expect(canonicalSha256(a)).toBe(canonicalSha256(b));
    expect(canonicalSha256(a)).toBe(sha256Hex('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}'));
    expect(canonicalSha256({ a: [1, 2] })).not.toBe(canonicalSha256({ a: [2, 1] }));
  });

  it('gives sha2-256 multihashes (1220 and the hex digest)', () => {
    expect(sha256Multihash(sha256Hex(''))).toBe('1220e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('digests a directory by its keys and their contents, not by where or in which order it was written', async () => {
    const root = await mkdtemp(join(tmpdir(), 'stratus-digest-'));
    try {
      const write = async (dir: string, files: [string, string][]) => {
        for (const [key, text] of files) {
          await mkdir(join(root, dir, key, '..'), { recursive: true });
          await writeFile(join(root, dir, key), text);
        }
        return directorySha256(join(root, dir));
      };
      const first = await write('a', [
        ['.zmetadata', '{}'],
        ['value/0.0', 'x'],
      ]);
      const second = await write('b', [
        ['value/0.0', 'x'],
        ['.zmetadata', '{}'],
      ]);
      const changed = await write('c', [
        ['.zmetadata', '{}'],
        ['value/0.0', 'y'],
      ]);
      const moved = await write('d', [
        ['.zmetadata', '{}'],
        ['value/0.1', 'x'],
      ]);
      expect(second).toBe(first);
      expect(new Set([first, changed, moved]).size).toBe(3);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
