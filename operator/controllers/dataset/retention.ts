import { createHash } from 'node:crypto';
import { retainVersions, type VersionPin } from '../../../core/resources/dataset/retention.ts';
import {
  DEFAULT_VERSION_HISTORY_LIMIT,
  type Dataset,
  type DatasetVersion,
} from '../../../core/resources/dataset/schema.ts';
import type { Action } from '../../runtime/actions.ts';
import type { RemoveVersionsInput } from '../../worker/dataset-versions.ts';

/** How often a dataset holding pinned versions past its limit looks again whether their runs released them. */
export const PIN_RECHECK_MS = 30_000;

/** What retention needs besides the Dataset. */
export interface RetentionObserved {
  /** The versions unfinished runs hold. */
  pins: readonly VersionPin[];
  /** Where the store is, for the worker that removes expired versions. */
  storageRoot: string;
  /** How long a version stays after it stopped being current (`datasets.version_grace_period`); 600 s when absent. */
  graceMs?: number;
}

export interface RetentionPlan {
  /** The versions the status keeps, when some expired. */
  versions?: DatasetVersion[];
  /** The worker that removes the expired versions' files. */
  actions: Action[];
  /** When retention has to look again: a grace period ends, or pins may be released. */
  recheckMs?: number;
  reason?: string;
}

/** The removal worker of a set of versions: one name per set, so a replanned removal starts nothing twice. */
export const removalName = (dataset: Dataset, versions: readonly string[]) =>
  `${dataset.metadata.name.slice(0, 40)}-rm-${createHash('sha256').update(versions.join(',')).digest('hex').slice(0, 12)}`;

/**
 * The retention step of a Dataset (docs/datasets.md#retention): versions that expired leave the status, and a
 * worker removes their files, started after the status write (an applier failing that write starts nothing).
 */
export function planRetention(
  dataset: Dataset,
  { pins, storageRoot, graceMs }: RetentionObserved,
  now: Date,
): RetentionPlan {
  const { kept, expired, nextExpiry } = retainVersions(dataset, pins, now, graceMs);
  const limit = dataset.spec.versionHistoryLimit ?? DEFAULT_VERSION_HISTORY_LIMIT;
  const heldByPins = kept.length > limit && pins.length > 0;
  const recheck = [
    ...(nextExpiry ? [Math.max(1_000, nextExpiry.getTime() - now.getTime())] : []),
    ...(heldByPins ? [PIN_RECHECK_MS] : []),
  ];
  const recheckMs = recheck.length > 0 ? Math.min(...recheck) : undefined;
  if (expired.length === 0) return { actions: [], ...(recheckMs !== undefined && { recheckMs }) };
  const ids = expired.map((v) => v.id);
  const input: RemoveVersionsInput = { datasetId: dataset.metadata.name, storageRoot, versions: ids };
  return {
    versions: kept,
    actions: [{ kind: 'startJob', job: { name: removalName(dataset, ids), task: 'remove-dataset-versions', input } }],
    ...(recheckMs !== undefined && { recheckMs }),
    reason: `versions ${ids.join(', ')} expired`,
  };
}
