import type { Dataset } from '../resources/dataset/schema.ts';
import { resolveVersion } from '../resources/dataset/served-version.ts';
import { readCommittedCube, type CommittedCube } from '../stores/committed-cube.ts';
import { storeFile } from '../stores/layout.ts';

/**
 * The cube of the version readers are served, read from its files; undefined when the dataset has no current
 * version (never materialized) or no period type. A version directory that cannot be read throws.
 */
export async function readCurrentCube(storageRoot: string, dataset: Dataset): Promise<CommittedCube | undefined> {
  const { version } = resolveVersion(dataset);
  const type = dataset.spec.periodType;
  if (!version || !type) return undefined;
  return readCommittedCube(storeFile(storageRoot, version.path), version.format, type, version.snapshot);
}

/** First and last stored period of a cube, as the sync planner takes them. */
export function committedRange(cube: CommittedCube | undefined): { start: string; end: string } | undefined {
  if (!cube || cube.periods.length === 0) return undefined;
  return { start: cube.periods[0]!, end: cube.periods[cube.periods.length - 1]! };
}
