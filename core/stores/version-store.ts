import { directoryStore } from './directory-store.ts';
import { openSnapshotStore } from './icechunk/repository.ts';
import type { ReadableStore } from './store.ts';

/**
 * The Zarr keys of a served version, for readers (the sync's extent, the engine): a Zarr version directory, or for
 * an Icechunk version the repository in `dir` at `snapshot`. Open its group with `zarr/metadata.ts` and decode its
 * chunks with `zarr/read.ts`.
 */
export async function openVersionStore(dir: string, snapshot?: string): Promise<ReadableStore> {
  return snapshot === undefined ? directoryStore(dir) : openSnapshotStore(dir, snapshot);
}
