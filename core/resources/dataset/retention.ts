/**
 * Which versions of a Dataset stay (docs/datasets.md#retention): the served one, the newest
 * `spec.versionHistoryLimit` (those asked to be removed, `spec.removeVersions`, left out), every version a run pins, and every version still in its grace period after it
 * stopped being current (a reader that resolved it just before the switch may still be reading it). The rest
 * expire: they leave `status.versions`, so no reader resolves them again, and a worker removes their files.
 */
import type { KubeObject } from '../../cluster/objects.ts';
import type { Delivery } from '../delivery/schema.ts';
import { isUnfinishedDelivery } from '../delivery/unfinished.ts';
import type { ProcessingJob } from '../processing-job/schema.ts';
import { DEFAULT_VERSION_HISTORY_LIMIT, type Dataset, type DatasetVersion } from './schema.ts';

/**
 * How long a version that stopped being current stays readable by the readers that resolved it before the switch
 * (`datasets.version_grace_period`): longer than any one read of a key, tile, download or processing chunk takes.
 */
export const DEFAULT_VERSION_GRACE_SECONDS = 600;

/** A run that holds a version: `holder` names it as a sentence's subject (`ProcessingJob ndvi-2024`). */
export interface VersionPin {
  version: string;
  holder: string;
}

export interface Retention {
  kept: DatasetVersion[];
  expired: DatasetVersion[];
  /** When the first kept version past the limit leaves its grace period; absent when none waits on time. */
  nextExpiry?: Date;
}

const holderOf = (object: KubeObject) => `${object.kind} ${object.metadata.name}`;

/** A ProcessingJob holds its input versions until it ends: queued or running (a retry is queued again). */
const unfinishedJob = (job: ProcessingJob) => job.status?.phase === 'queued' || job.status?.phase === 'running';

/**
 * The versions of dataset `datasetId` that runs hold: the inputs of unfinished batch jobs (a job a workflow trigger
 * started included), and the inputs of the job whose results an unfinished delivery sends.
 */
export function versionPins(
  datasetId: string,
  jobs: readonly ProcessingJob[],
  deliveries: readonly Delivery[],
): VersionPin[] {
  const inputsOf = (job: ProcessingJob) => (job.status?.inputs ?? []).filter((i) => i.dataset === datasetId);
  const pins = jobs
    .filter(unfinishedJob)
    .flatMap((job) => inputsOf(job).map((i) => ({ version: i.version, holder: holderOf(job) })));
  const byName = new Map(jobs.map((job) => [job.metadata.name, job]));
  for (const delivery of deliveries.filter(isUnfinishedDelivery)) {
    // A table source reads a table version, not a dataset version.
    const source = delivery.spec.jobId === undefined ? undefined : byName.get(delivery.spec.jobId);
    if (source) pins.push(...inputsOf(source).map((i) => ({ version: i.version, holder: holderOf(delivery) })));
  }
  return pins;
}

/**
 * Splits `dataset`'s versions into those it keeps at `now` and those that expired; never the served one. A version
 * stays `graceMs` after it stopped being current.
 */
export function retainVersions(
  dataset: Dataset,
  pins: readonly VersionPin[],
  now: Date,
  graceMs = DEFAULT_VERSION_GRACE_SECONDS * 1000,
): Retention {
  const versions = dataset.status?.versions ?? [];
  const limit = dataset.spec.versionHistoryLimit ?? DEFAULT_VERSION_HISTORY_LIMIT;
  const current = dataset.status?.currentVersion;
  const pinned = new Set(pins.map((p) => p.version));
  const removing = new Set(dataset.spec.removeVersions ?? []);
  // `status.versions` is oldest first: the newest `limit` are its tail, of those not asked to be removed.
  const newest = new Set(
    versions
      .filter((v) => !removing.has(v.id))
      .slice(-limit)
      .map((v) => v.id),
  );
  const kept: DatasetVersion[] = [];
  const expired: DatasetVersion[] = [];
  let nextExpiry: Date | undefined;
  for (const version of versions) {
    const graceEnds = version.supersededAt ? Date.parse(version.supersededAt) + graceMs : 0;
    if (version.id === current || newest.has(version.id) || pinned.has(version.id)) kept.push(version);
    else if (graceEnds > now.getTime()) {
      kept.push(version);
      if (!nextExpiry || graceEnds < nextExpiry.getTime()) nextExpiry = new Date(graceEnds);
    } else expired.push(version);
  }
  return { kept, expired, ...(nextExpiry && { nextExpiry }) };
}

/** The runs that hold `version` of `datasetId`, for the refusal of a removal by hand. */
export const pinsOf = (pins: readonly VersionPin[], version: string) =>
  pins.filter((p) => p.version === version).map((p) => p.holder);
