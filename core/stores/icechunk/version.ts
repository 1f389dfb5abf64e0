import type { Session } from '@earthmover/icechunk';
import { RasterCubeWriter, type RasterCubeDescription } from '../raster-cube.ts';
import type { CubeSink, PreviousVersion, VersionWriter, WritableStore } from '../store.ts';
import { spliceCube } from '../zarr/append.ts';
import { MAIN_BRANCH, openOrCreateRepository } from './repository.ts';
import { icechunkStore } from './store.ts';

/**
 * A new version of an `icechunk` dataset. It is written on a branch of its own (`run-<version>`) and committed
 * after every block of time steps, so a crash loses at most one block and `main` never shows a partial version.
 * Publishing moves `main` to the last commit with a compare-and-swap from where it was when the run began.
 * Branches left by a crashed run are deleted here: one writer per dataset means none of them is live.
 *
 * A whole materialization clears the branch first. A splice (`previous`: the snapshot of the version the fetched
 * periods are spliced into, which must still be the head of `main`) keeps the snapshot's chunks of the blocks the
 * fetched periods do not touch, so only the touched blocks and the metadata are written.
 */
export async function openIcechunkVersion(
  dir: string,
  path: string,
  versionId: string,
  description: RasterCubeDescription,
  previousVersion?: Pick<PreviousVersion, 'snapshot' | 'splice'>,
): Promise<VersionWriter> {
  const previous = previousVersion?.snapshot;
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
  let writer: CubeSink & {
    readonly pendingPeriods: number;
    readonly appendedPeriods: number;
    written(): Promise<void>;
  };
  if (previous === undefined) {
    await session.store.clear();
    writer = await RasterCubeWriter.create(keys, { ...description, zarrVersion: 3 });
  } else {
    // The previous version is read from its own snapshot, never from this run's session: a splice that starts
    // before the stored periods rewrites a block key before it has read all the stored periods of that key.
    const previousKeys = icechunkStore((await repo.readonlySession({ snapshotId: base })).store);
    const splice = await spliceCube(keys, previousKeys, 3, description, previousVersion?.splice);
    // Icechunk refuses a chunk outside its array's shape: when the new version has more time blocks than the
    // stored one, its metadata goes first (and again at the end, as always).
    const blocks = (periods: number) => Math.ceil(periods / splice.layout.chunks![0]);
    if (blocks(splice.layout.periods.length) > blocks(splice.stored.shape[0]!))
      await RasterCubeWriter.completeParts(keys, splice.layout);
    writer = splice;
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
      // A snapshot holds every chunk of the periods its message counts.
      if (writer.pendingPeriods === 0) {
        await writer.written();
        await commit();
      }
    },
    finish: async () => {
      const coverage = await writer.finish();
      await commit();
      return coverage;
    },
    settled: () => writer.settled(),
  };

  return {
    sink,
    publish: async () => {
      await repo.resetBranch(MAIN_BRANCH, snapshot, base);
      await repo.deleteBranch(branch);
      return { path, snapshot };
    },
    discard: async () => {
      await sink.settled();
      await repo.deleteBranch(branch).catch(() => undefined);
    },
  };
}
