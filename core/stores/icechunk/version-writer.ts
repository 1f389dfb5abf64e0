import type { Session } from '@earthmover/icechunk';
import type { CubeSink, VersionWriter } from '../cube-sink.ts';
import { RasterCubeWriter, type RasterCubeDescription } from '../raster-cube.ts';
import { MAIN_BRANCH, openOrCreateRepository } from './repository.ts';

const asBuffer = (value: Uint8Array | string) =>
  typeof value === 'string' ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);

/**
 * A new version of an `icechunk` dataset. It is written on a branch of its own (`run-<version>`), cleared first
 * because a version is a whole materialization, and committed after every block of time steps, so a crash loses
 * at most one block and `main` never shows a partial version. Publishing moves `main` to the last commit with a
 * compare-and-swap from where it was when the run began. Branches left by a crashed run are deleted here: one
 * writer per dataset means none of them is live.
 */
export async function openIcechunkVersion(
  dir: string,
  path: string,
  versionId: string,
  description: RasterCubeDescription,
): Promise<VersionWriter> {
  const repo = await openOrCreateRepository(dir);
  for (const branch of await repo.listBranches()) if (branch !== MAIN_BRANCH) await repo.deleteBranch(branch);
  const base = await repo.lookupBranch(MAIN_BRANCH);
  const branch = `run-${versionId}`;
  await repo.createBranch(branch, base);
  let session: Session = await repo.writableSession(branch);
  await session.store.clear();
  const writer = await RasterCubeWriter.create((key, value) => session.store.set(key, asBuffer(value)), {
    ...description,
    zarrVersion: 3,
  });
  const total = description.periods.length;
  let appended = 0;
  let snapshot = base;

  async function commit(): Promise<void> {
    snapshot = await session.commit(`Stratus version ${versionId}: ${appended} of ${total} periods`);
    session = await repo.writableSession(branch);
  }

  const sink: CubeSink = {
    append: async (values) => {
      await writer.append(values);
      appended++;
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
