import type { Session } from '@earthmover/icechunk';
import { RasterCubeWriter, type RasterCubeDescription } from '../raster-cube.ts';
import type { CubeSink, VersionWriter, WritableStore } from '../store.ts';
import { appendStart, continueCube } from '../zarr/append.ts';
import { MAIN_BRANCH, openOrCreateRepository } from './repository.ts';
import { icechunkStore } from './store.ts';

/**
 * A new version of an `icechunk` dataset. It is written on a branch of its own (`run-<version>`) and committed
 * after every block of time steps, so a crash loses at most one block and `main` never shows a partial version.
 * Publishing moves `main` to the last commit with a compare-and-swap from where it was when the run began.
 * Branches left by a crashed run are deleted here: one writer per dataset means none of them is live.
 *
 * A whole materialization clears the branch first. An append (`previous`: the snapshot of the version a sync
 * continues, which must still be the head of `main`) keeps the snapshot's complete time blocks as they are, so
 * only the partly filled last block, the new blocks and the metadata are written.
 */
export async function openIcechunkVersion(
  dir: string,
  path: string,
  versionId: string,
  description: RasterCubeDescription,
  previous?: string,
): Promise<VersionWriter> {
  const repo = await openOrCreateRepository(dir);
  for (const branch of await repo.listBranches()) if (branch !== MAIN_BRANCH) await repo.deleteBranch(branch);
  const base = await repo.lookupBranch(MAIN_BRANCH);
  if (previous !== undefined && previous !== base)
    throw new Error(`the repository's main branch moved from snapshot ${previous} to ${base}; plan the sync again`);
  const branch = `run-${versionId}`;
  await repo.createBranch(branch, base);
  let session: Session = await repo.writableSession(branch);
  // Each commit starts a new session: writes go to the current one.
  const keys: WritableStore = { set: (key, value) => icechunkStore(session.store).set(key, value) };
  let writer: RasterCubeWriter;
  if (previous === undefined) {
    await session.store.clear();
    writer = await RasterCubeWriter.create(keys, { ...description, zarrVersion: 3 });
  } else {
    const start = await appendStart(icechunkStore(session.store), 3, description.variable);
    writer = await continueCube(keys, start, 3, description);
  }
  const total = description.periods.length;
  let snapshot = base;

  async function commit(): Promise<void> {
    snapshot = await session.commit(`Stratus version ${versionId}: ${writer.appendedPeriods} of ${total} periods`);
    session = await repo.writableSession(branch);
  }

  const sink: CubeSink = {
    append: async (values) => {
      await writer.append(values);
      if (writer.pendingPeriods === 0) await commit();
    },
    finish: async () => {
      const coverage = await writer.finish();
      await commit();
      return coverage;
    },
  };

  return {
    sink,
    publish: async () => {
      await repo.resetBranch(MAIN_BRANCH, snapshot, base);
      await repo.deleteBranch(branch);
      return { path, snapshot };
    },
    discard: async () => {
      await repo.deleteBranch(branch).catch(() => undefined);
    },
  };
}
