import { mkdir } from 'node:fs/promises';
import type { Repository } from '@earthmover/icechunk';
import type { KeyReader } from '../zarr/group-writer.ts';
import { fileSystemStorage } from './file-storage.ts';
import { icechunk } from './module.ts';

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

/** Reads Zarr keys of the repository in `dir` at `snapshotId`; a missing key rejects, as a missing file would. */
export async function snapshotKeyReader(dir: string, snapshotId: string): Promise<KeyReader> {
  const session = await (await openRepository(dir)).readonlySession({ snapshotId });
  return async (key) => {
    const bytes = await session.store.get(key);
    if (!bytes) throw new Error(`ObjectNotFound: no key ${key} in snapshot ${snapshotId}`);
    return bytes;
  };
}
