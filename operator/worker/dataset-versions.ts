import { removeTree } from '../../core/files/durable.ts';
import { z } from 'zod';
import { RunError } from '../../core/runs/errors.ts';
import { storeFile, thumbnailPath, versionDir } from '../../core/stores/layout.ts';
import type { Task } from './protocol.ts';

/** What the dataset controller hands the removal of a dataset's expired versions. */
export const removeVersionsInputSchema = z.object({
  datasetId: z.string().min(1),
  storageRoot: z.string().min(1),
  versions: z.array(z.string().min(1)).min(1),
});

export type RemoveVersionsInput = z.infer<typeof removeVersionsInputSchema>;

/**
 * The `remove-dataset-versions` task: the files of versions retention expired (docs/datasets.md#retention) go,
 * their directories and thumbnails. The controller took them out of the Dataset's status first, so no reader
 * resolves them any more. An Icechunk version is a snapshot of the repository every version shares: it has no
 * directory of its own, and its chunks stay until Icechunk's garbage collection. A worker does it because the
 * operator's pod mounts the store read-only.
 */
export const removeDatasetVersions: Task = async (raw) => {
  const parsed = removeVersionsInputSchema.safeParse(raw);
  if (!parsed.success)
    throw new RunError('InvalidInput', `invalid remove-dataset-versions input: ${parsed.error.message}`);
  const { storageRoot, datasetId, versions } = parsed.data;
  for (const version of versions) {
    await removeTree(versionDir(storageRoot, datasetId, version));
    await removeTree(storeFile(storageRoot, thumbnailPath(datasetId, version)));
  }
  return { removed: versions };
};
