import { mkdir } from 'node:fs/promises';
import type { Repository } from '@earthmover/icechunk';
import type { ReadableStore } from '../store.ts';
import { fileSystemStorage } from './file-storage.ts';
import { icechunk } from './module.ts';
import { icechunkStore } from './store.ts';

/** The branch readers follow; a version is published by moving it. */
export const MAIN_BRANCH = 'main';

/** Opens the repository in `dir`; fails when there is none. */
export function openRepository(dir: string): Promise<Repository> {
  return icechunk().Repository.open(fileSystemStorage(dir));
}

/** Opens the repository in `dir`, creating it on first use (writers only). */
export async function openOrCreateRepository(dir: string): Promise<Repository> {
  await mkdir(dir, { recursive: true });
  return icechunk().Repository.openOrCreate(fileSystemStorage(dir));
}

/** The Zarr keys of the repository in `dir` at `snapshotId`; fails when there is no such repository or snapshot. */
export async function openSnapshotStore(dir: string, snapshotId: string): Promise<ReadableStore> {
  const session = await (await openRepository(dir)).readonlySession({ snapshotId });
  return icechunkStore(session.store);
}
