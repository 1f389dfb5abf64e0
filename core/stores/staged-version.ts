import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { publishDirectory, removeTree, syncTree } from '../files/durable.ts';
import { stagingDir, versionDir, versionPath } from './layout.ts';
import type { CubeSink, PublishedVersion, VersionWriter } from './store.ts';

/**
 * Versions that are directories (Zarr, NetCDF-4): written under `staging/`, never served from there, and published
 * by one rename into `versions/` once every file and directory is flushed.
 */

export const stagedDir = (storageRoot: string, datasetId: string, versionId: string) =>
  join(stagingDir(storageRoot, datasetId), versionId);

/** Publishes the staged directory of a finished version. */
export async function publishStaged(
  storageRoot: string,
  datasetId: string,
  versionId: string,
): Promise<PublishedVersion> {
  const staging = stagedDir(storageRoot, datasetId, versionId);
  await syncTree(staging);
  await publishDirectory(staging, versionDir(storageRoot, datasetId, versionId));
  return { path: versionPath(datasetId, versionId) };
}

/** Opens a version whose sink `open` writes into its staging directory. */
export async function openStagedVersion(
  storageRoot: string,
  datasetId: string,
  versionId: string,
  open: (staging: string) => Promise<CubeSink>,
): Promise<VersionWriter> {
  const staging = stagedDir(storageRoot, datasetId, versionId);
  await mkdir(staging, { recursive: true });
  const sink = await open(staging);
  return {
    sink,
    publish: () => publishStaged(storageRoot, datasetId, versionId),
    // Chunk writes still in flight would put files back into the removed directory.
    discard: async () => {
      await sink.settled();
      await removeTree(staging);
    },
  };
}
