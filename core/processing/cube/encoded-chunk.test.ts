import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodRange } from '../../periods/index.ts';
import { directoryStore } from '../../stores/directory-store.ts';
import { gridCovering } from '../../stores/raster-grid.ts';
import type { ReadableStore } from '../../stores/store.ts';
import { writeDailyStore } from '../../../test/support/stored-cubes.ts';
import { openStoredCube } from '../collections/stored-cube.ts';
import { decodeEncodedChunk, forTransfer } from './encoded-chunk.ts';

// 2 x 3 cells, 4 days in one uncompressed chunk: its stored bytes are its values.
const grid = gridCovering([0, 0, 0.3, 0.2], 0.1);
const periods = periodRange('daily', '2024-01-01', '2024-01-04');
const values = Float32Array.from({ length: 4 * 6 }, (_, i) => i / 4);

/** The directory store behind a cache that hands every reader the same bytes, as a shared cache does. */
function cached(store: ReadableStore): ReadableStore {
  const kept = new Map<string, Uint8Array | undefined>();
  return {
    get: async (key) => {
      if (!kept.has(key)) kept.set(key, await store.get(key));
      return kept.get(key);
    },
  };
}

describe('a stored chunk on its way to the cube', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-encoded-chunk-'));
    await writeDailyStore(dir, periods, grid, (t) => values.slice(t * 6, (t + 1) * 6), {
      compressor: null,
      chunks: [4, 2, 3],
    });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads a file afresh each time from a directory store, so its bytes are the reader’s', async () => {
    const store = directoryStore(dir);
    expect(store.freshBytes).toBe(true);
    const [a, b] = [await store.get('value/0.0.0'), await store.get('value/0.0.0')];
    expect(a!.buffer).not.toBe(b!.buffer);
    a![0] = 0xff;
    expect(b![0]).not.toBe(0xff);
  });

  it('keeps a directory store’s uncompressed bytes as the chunk’s values, and transfers them as they are', async () => {
    const cube = await openStoredCube(directoryStore(dir));
    const encoded = await cube.source.encodedChunk!([0, 0, 0, 0]);
    expect(encoded.owned).toBe(true);
    const { chunk, transfer } = forTransfer(encoded);
    expect(transfer).toEqual([encoded.bytes!.buffer]);
    expect(chunk.bytes).toBe(encoded.bytes);
    const decoded = await decodeEncodedChunk(encoded);
    expect(decoded.buffer).toBe(encoded.bytes!.buffer);
    expect(decoded).toEqual(values);
  });

  it('copies bytes a store may hand to another reader, before decoding changes them or a worker takes them', async () => {
    const cube = await openStoredCube(cached(directoryStore(dir)));
    const encoded = await cube.source.encodedChunk!([0, 0, 0, 0]);
    expect(encoded.owned).toBe(false);
    const { chunk, transfer } = forTransfer(encoded);
    expect(transfer).toHaveLength(1);
    expect(transfer[0]).not.toBe(encoded.bytes!.buffer);
    expect(chunk).toMatchObject({ owned: true });
    const decoded = await decodeEncodedChunk(encoded);
    expect(decoded.buffer).not.toBe(encoded.bytes!.buffer);
    decoded.fill(-1);
    // The cache's bytes are as stored: the next reader decodes the same values.
    expect(await decodeEncodedChunk(await cube.source.encodedChunk!([0, 0, 0, 0]))).toEqual(values);
  });
});
