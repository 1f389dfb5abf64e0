import { open, readFile } from 'node:fs/promises';
import { writeDurable } from '../files/durable.ts';
import { resolveKey } from './layout.ts';
import type { RangeQuery, ReadableStore, WritableStore } from './store.ts';

/** Errors that mean "no such key": no file, a file where a directory was expected, a directory where a file was. */
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

function missing(err: unknown): undefined {
  if (MISSING.has((err as NodeJS.ErrnoException).code ?? '')) return undefined;
  throw err;
}

async function readRange(path: string, range: RangeQuery): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const size = 'suffixLength' in range ? (await handle.stat()).size : 0;
    const [offset, length] =
      'suffixLength' in range
        ? [Math.max(0, size - range.suffixLength), Math.min(range.suffixLength, size)]
        : [range.offset, range.length];
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The keys of a directory: one file per key, each written flushed (the directory is published by its caller, by
 * one rename). A key that would leave the directory (`..`, an empty segment) reads as missing and is refused on
 * write.
 */
export function directoryStore(dir: string): ReadableStore & Required<Pick<ReadableStore, 'getRange'>> & WritableStore {
  return {
    freshBytes: true,
    get: async (key) => {
      const path = resolveKey(dir, key);
      return path === undefined ? undefined : readFile(path).catch(missing);
    },
    getRange: async (key, range) => {
      const path = resolveKey(dir, key);
      return path === undefined ? undefined : readRange(path, range).catch(missing);
    },
    set: async (key, value) => {
      const path = resolveKey(dir, key);
      if (path === undefined || key === '') throw new Error(`not a store key: ${JSON.stringify(key)}`);
      await writeDurable(path, value);
    },
  };
}
