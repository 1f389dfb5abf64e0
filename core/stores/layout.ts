import { join, sep } from 'node:path';

/**
 * Where a dataset's files live under the storage root:
 *   datasets/<id>/versions/<version>/   complete, immutable materializations (readers are served these)
 *   datasets/<id>/staging/<version>/    a materialization being written; never served
 *   datasets/<id>/thumbnails/<version>.png  the preview rendered with a version
 *   datasets/<id>/icechunk/             the Icechunk repository of an `icechunk` dataset: its versions are snapshots
 *   analytics/<name>/versions/<version>.parquet  the published versions of an AnalyticsTable
 *   analytics/<name>/staging/            a table version being written; never served
 * A version directory appears by one rename of its complete staging directory; an Icechunk version by one
 * compare-and-swap of the repository's `main` branch.
 */

/** Names the store accepts for datasets and versions: DNS-1123-like, so they are safe as one path segment. */
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export function isSafeName(name: string): boolean {
  return NAME.test(name) && !name.includes('..');
}

function checked(name: string): string {
  if (!isSafeName(name)) throw new Error(`not a safe store name: ${JSON.stringify(name)}`);
  return name;
}

export const datasetDir = (root: string, id: string) => join(root, 'datasets', checked(id));
export const versionsDir = (root: string, id: string) => join(datasetDir(root, id), 'versions');
export const stagingDir = (root: string, id: string) => join(datasetDir(root, id), 'staging');
export const versionDir = (root: string, id: string, version: string) => join(versionsDir(root, id), checked(version));

export const icechunkDir = (root: string, id: string) => join(datasetDir(root, id), 'icechunk');
/** Store path of a dataset's Icechunk repository, as its versions record it. */
export const icechunkPath = (id: string) => ['datasets', checked(id), 'icechunk'].join('/');

export const analyticsTableDir = (root: string, name: string) => join(root, 'analytics', checked(name));
/** Store path (relative to the root) of a published AnalyticsTable version's directory, as its status records it. */
export const analyticsTablePath = (name: string, version: string) =>
  ['analytics', checked(name), 'versions', checked(version)].join('/');
/** Where a build writes an AnalyticsTable version before one rename publishes it under `versions/`. */
export const analyticsTableStaging = (root: string, name: string, version: string) =>
  join(analyticsTableDir(root, name), 'staging', checked(version));

/** The file of a NetCDF-4 version inside its version directory. */
export const NETCDF_FILE = 'data.nc';

export const thumbnailsDir = (root: string, id: string) => join(datasetDir(root, id), 'thumbnails');
/** Store path (relative to the root) of the thumbnail rendered with a version. */
export const thumbnailPath = (id: string, version: string) =>
  ['datasets', checked(id), 'thumbnails', `${checked(version)}.png`].join('/');

/** The store path of a version relative to the storage root, as recorded in the Dataset's status. */
export const versionPath = (id: string, version: string) =>
  ['datasets', checked(id), 'versions', checked(version)].join('/');

/** The file system path of a store path recorded in a status (`datasets/<id>/...`). */
export const storeFile = (root: string, path: string, ...more: string[]) => join(root, ...path.split('/'), ...more);

/** A version id that sorts by creation time and names the attempt that wrote it. */
export function newVersionId(now: Date, attempt: number): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace('.', '').toLowerCase()}-a${attempt}`;
}

/**
 * Whether a client-supplied key (`a/b/.zarray`) stays inside the store it names: no segment is empty, `.`, `..`,
 * or holds a backslash, NUL or a (percent-decoded) separator. Callers answer 400 otherwise.
 */
export function isSafeKey(key: string): boolean {
  return key
    .split('/')
    .every(
      (segment) =>
        segment !== '' && segment !== '.' && segment !== '..' && !/[\\\0]/.test(segment) && !segment.includes(sep),
    );
}

/** Resolves a client-supplied key under `base` (`''` is `base` itself), or undefined when it is not safe. */
export function resolveKey(base: string, key: string): string | undefined {
  if (key === '') return base;
  return isSafeKey(key) ? join(base, ...key.split('/')) : undefined;
}

/**
 * A batch job's files: jobs/<namespace>/<job>/ holds one directory per attempt that finished (`<attempt>/`, its
 * results), the attempt being written (`<attempt>.staging/`, never served) and the attempts' logs
 * (`logs/<attempt>.jsonl`). An attempt's results appear by one rename of its staging directory.
 */
export const jobPath = (namespace: string, job: string) => ['jobs', checked(namespace), checked(job)].join('/');
export const jobRunPath = (namespace: string, job: string, attempt: string) =>
  [jobPath(namespace, job), checked(attempt)].join('/');
export const jobLogPath = (namespace: string, job: string, attempt: string) =>
  [jobPath(namespace, job), 'logs', `${checked(attempt)}.jsonl`].join('/');

/**
 * An export's files: exports/<namespace>/<export>/changelog.jsonl, the append-only changelog of the values its
 * deliveries changed at the target, and deliveries/<delivery>.json, each delivery's checkpoint (its chunks and
 * their outcomes), rewritten whole by one rename at every step.
 */
export const exportPath = (namespace: string, exportId: string) =>
  ['exports', checked(namespace), checked(exportId)].join('/');
export const changelogPath = (namespace: string, exportId: string) =>
  [exportPath(namespace, exportId), 'changelog.jsonl'].join('/');
export const deliveryCheckpointPath = (namespace: string, exportId: string, delivery: string) =>
  [exportPath(namespace, exportId), 'deliveries', `${checked(delivery)}.json`].join('/');
/** A delivery's provenance manifest, beside its checkpoint. */
export const deliveryProvenancePath = (namespace: string, exportId: string, delivery: string) =>
  [exportPath(namespace, exportId), 'deliveries', `${checked(delivery)}.provenance.json`].join('/');
