import type { Store } from '@earthmover/icechunk';
import type { RangeQuery, ReadableStore, WritableStore } from '../store.ts';

/**
 * Icechunk refuses a path that is no Zarr key (`.zmetadata`, a group or array directory such as `value/c`), and a
 * chunk key under a node the snapshot does not have (`nope/c/0`): under the store contract there is no such key.
 * Other errors pass.
 */
export function notAKey(err: unknown): undefined {
  if (err instanceof Error && /invalid zarr key|node not found/.test(err.message)) return undefined;
  throw err;
}

const asBuffer = (value: Uint8Array | string) =>
  typeof value === 'string' ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);

/** A session's Zarr store under the store contract: writes become visible when the session commits. */
export function icechunkStore(store: Store): ReadableStore & WritableStore {
  return {
    get: async (key) => (await store.get(key).catch(notAKey)) ?? undefined,
    getRange: async (key: string, range: RangeQuery) => (await store.getRange(key, range).catch(notAKey)) ?? undefined,
    set: (key, value) => store.set(key, asBuffer(value)),
  };
}
