import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { z } from 'zod';
import type { Cluster } from '../../../core/cluster/port.ts';
import { isTransientName } from '../../../core/stores/icechunk/file-storage.ts';
import { icechunkDir, isSafeKey, isSafeName, resolveKey } from '../../../core/stores/layout.ts';
import { validationFailed } from '../../errors.ts';
import { readVersion, type DatasetRef } from '../resources/served-version.ts';

/**
 * The Icechunk repositories served raw at `/icechunk/` (for Icechunk clients): which directory serves a dataset,
 * and the S3 listing of their objects that those clients ask the root for.
 */

export interface RepositoryContext {
  cluster: Cluster;
  namespace: string;
  storageRoot: string;
}

/**
 * The repository directory of an Icechunk dataset that has a published version (the repository exists then), with
 * the snapshot of the version `ref` names (the served one without a name). Every retained version is a snapshot
 * of the one repository, so the directory is the same whichever is named.
 */
export async function repositoryDir({ cluster, namespace, storageRoot }: RepositoryContext, ref: DatasetRef) {
  const { version } = await readVersion(cluster, namespace, ref.id, {
    formats: ['icechunk'],
    formatName: 'Icechunk',
    version: ref.version,
  });
  return { dir: icechunkDir(storageRoot, ref.id), snapshot: version.snapshot };
}

/** The query of an S3 ListObjectsV2 request, as Icechunk's fetch storage and other S3 clients send it. */
export const listObjectsQuerySchema = z.object({
  'list-type': z.literal('2').optional().describe('S3 ListObjectsV2 (for Icechunk clients): must be 2.'),
  prefix: z.string().optional().describe('S3 listing: `icechunk/<dataset_id>/` and an object path prefix.'),
  'max-keys': z.coerce.number().int().min(1).max(1000).optional().describe('S3 listing: keys per page.'),
  'continuation-token': z.string().optional().describe('S3 listing: the NextContinuationToken of the last page.'),
  'start-after': z.string().optional().describe('S3 listing: list keys after this one.'),
});

const xmlEscape = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

interface ListedObject {
  key: string;
  size: number;
  mtime: Date;
}

/** Every object under `dir` whose repository path starts with `prefix`, sorted by key. */
async function objectsUnder(dir: string, prefix: string): Promise<ListedObject[]> {
  // Only the deepest directory the prefix names in full is walked, not the whole repository.
  const folder = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
  const base = folder === '' ? dir : resolveKey(dir, folder);
  if (base === undefined) return [];
  const entries = await readdir(base, { recursive: true, withFileTypes: true }).catch(() => []);
  const objects: ListedObject[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || isTransientName(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    const key = relative(dir, file).split(sep).join('/');
    if (!key.startsWith(prefix)) continue;
    const info = await stat(file).catch(() => undefined);
    if (info) objects.push({ key, size: info.size, mtime: info.mtime });
  }
  return objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Answers an S3 ListObjectsV2 request (`GET /?list-type=2&prefix=icechunk/<id>/...`) over the repositories
 * served at `/icechunk/`, which is how Icechunk's fetch storage lists a repository it reads over HTTP. Keys are
 * `icechunk/<dataset_id>/<object path>`; pages of at most `max-keys` (1000) with continuation tokens.
 */
export async function listIcechunkObjects(
  context: RepositoryContext,
  query: z.infer<typeof listObjectsQuerySchema>,
): Promise<string> {
  const prefix = query.prefix ?? '';
  const [root, id, ...rest] = prefix.split('/');
  if (root !== 'icechunk' || id === undefined || !isSafeName(id))
    throw validationFailed(['query', 'prefix'], 'an S3 listing here needs a prefix of the form icechunk/<dataset_id>/');
  const inner = rest.join('/');
  const folder = inner.includes('/') ? inner.slice(0, inner.lastIndexOf('/')) : '';
  if (folder !== '' && !isSafeKey(folder))
    throw validationFailed(['query', 'prefix'], `${prefix} is no object path prefix inside a repository`);
  const { dir } = await repositoryDir(context, { id });
  const after =
    query['continuation-token'] !== undefined
      ? Buffer.from(query['continuation-token'], 'base64url').toString()
      : query['start-after'];
  const maxKeys = query['max-keys'] ?? 1000;
  const all = (await objectsUnder(dir, inner))
    .map((o) => ({ ...o, key: `icechunk/${id}/${o.key}` }))
    .filter((o) => after === undefined || o.key > after);
  const page = all.slice(0, maxKeys);
  const truncated = all.length > page.length;
  const contents = page.map(
    (o) =>
      `<Contents><Key>${xmlEscape(o.key)}</Key><LastModified>${o.mtime.toISOString()}</LastModified>` +
      `<ETag>"${o.size.toString(36)}-${o.mtime.getTime().toString(36)}"</ETag><Size>${o.size}</Size>` +
      '<StorageClass>STANDARD</StorageClass></Contents>',
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
    `<Name>stratus</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount>`,
    `<MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>`,
    ...(query['continuation-token'] !== undefined
      ? [`<ContinuationToken>${xmlEscape(query['continuation-token'])}</ContinuationToken>`]
      : []),
    ...(truncated
      ? [`<NextContinuationToken>${Buffer.from(page.at(-1)!.key).toString('base64url')}</NextContinuationToken>`]
      : []),
    ...contents,
    '</ListBucketResult>',
  ].join('');
}
