import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { featureCollectionDir, featureFilePath } from '../../core/features/layout.ts';
import { writeGeoParquet } from '../../core/features/geoparquet.ts';
import { prepareFeatures } from '../../core/features/prepare.ts';
import { featureProvider } from '../../core/providers/features/available.ts';
import type { Credentials } from '../../core/providers/http.ts';
import { newVersionId, storeFile } from '../../core/stores/layout.ts';
import { RunError } from '../../core/runs/errors.ts';
import {
  featureRefreshInputSchema,
  type FeatureRefreshInput,
  type FeatureRefreshResult,
} from './feature-refresh-input.ts';
import { workerCredentials } from './credentials.ts';
import type { Task, TaskContext } from './protocol.ts';

/**
 * Crash leftovers never outlive the next run: every file of the collection that its status no longer names is
 * removed (older versions, temporary files of a write that died). One run writes a collection at a time.
 */
async function sweep(input: FeatureRefreshInput): Promise<void> {
  const dir = featureCollectionDir(input.storageRoot, input.collectionId);
  for (const name of await readdir(dir).catch(() => [] as string[]))
    if (!input.keepFiles.includes(['features', input.collectionId, name].join('/')))
      await rm(join(dir, name), { force: true, recursive: true });
}

/** The credentials the job runner put in the environment: a token wins over basic credentials. */
function credentials(tokenScheme: string): Credentials | undefined {
  const { token, username, password } = workerCredentials();
  if (token !== undefined) return { token, scheme: tokenScheme };
  return username !== undefined && password !== undefined ? { username, password } : undefined;
}

async function refresh(input: FeatureRefreshInput, context: TaskContext): Promise<FeatureRefreshResult> {
  const provider = featureProvider(input.provider.name);
  if (!provider)
    throw new RunError('ProviderUnavailable', `No feature provider named ${input.provider.name} on this instance.`);
  const now = new Date();
  context.progress(0, 2, `fetching features from the ${provider.name} provider`);
  const fetched = await provider.fetch({
    parameters: input.provider.parameters,
    bbox: input.bbox,
    signal: context.signal,
    credentials: credentials(provider.tokenScheme ?? 'Bearer'),
  });
  context.throwIfCancelled();
  const { features, report } = prepareFeatures(fetched.document, {
    origin: fetched.origin,
    idProperty: input.idProperty,
    sourceCrs: fetched.crs,
  });
  context.progress(1, 2, `writing ${features.length} features`);
  await sweep(input);
  const id = newVersionId(now, input.attempt);
  const path = featureFilePath(input.collectionId, id);
  const summary = await writeGeoParquet(storeFile(input.storageRoot, path), features);
  context.progress(2, 2, `stored ${features.length} features`);
  return {
    collectionId: input.collectionId,
    version: {
      id,
      createdAt: now.toISOString(),
      path,
      featureCount: summary.featureCount,
      geometryTypes: summary.geometryTypes,
      bbox: summary.bbox ?? null,
    },
    report,
  };
}

/**
 * A feature refresh attempt: fetch the template's features, validate, repair and reproject them, and write a new
 * GeoParquet version. The collection switches to it only when the controller records the result.
 */
export const featureRefresh: Task = async (raw, context) => {
  const parsed = featureRefreshInputSchema.safeParse(raw);
  if (!parsed.success) throw new RunError('InvalidInput', `invalid feature refresh input: ${parsed.error.message}`);
  return refresh(parsed.data, context);
};
