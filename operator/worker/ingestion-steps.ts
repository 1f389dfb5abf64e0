import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_COLORMAP } from '../../core/render/colormap.ts';
import { renderGridThumbnail } from '../../core/render/thumbnail.ts';
import { PeriodError, requestedRange, type Period } from '../../core/periods/index.ts';
import { rasterProvider } from '../../core/providers/available.ts';
import type { RasterSession } from '../../core/providers/raster.ts';
import type { RasterGrid } from '../../core/stores/raster-grid.ts';
import { removeTree, writeFileAtomic } from '../../core/files/durable.ts';
import { stagingDir, storeFile, thumbnailPath, thumbnailsDir, versionsDir } from '../../core/stores/layout.ts';
import type { RasterCubeDescription } from '../../core/stores/raster-cube.ts';
import { RunError } from '../../core/runs/errors.ts';
import { workerCredentials } from './credentials.ts';
import type { IngestionInput } from './ingestion-input.ts';
import type { TaskContext } from './protocol.ts';

/** The moment the attempt's version is of: named in the input when parts must agree on it, else now. */
export function attemptTime(input: IngestionInput): Date {
  return input.createdAt ? new Date(input.createdAt) : new Date();
}

export function requestedPeriods(input: IngestionInput, now: Date) {
  const type = input.dataset.periodType;
  if (!type) throw new RunError('InvalidRequest', `dataset ${input.datasetId} has no period type`);
  try {
    return requestedRange(type, input.start, input.end, now);
  } catch (err) {
    if (err instanceof PeriodError) throw new RunError('InvalidRequest', err.message);
    throw err;
  }
}

/**
 * Crash leftovers never outlive the next run: the staging area is emptied, and version directories (and
 * thumbnails) that the Dataset no longer references are removed. Only one run writes a dataset at a time, so nothing here is live but
 * the `current` version of this attempt, whose staged files (and thumbnail) a split attempt keeps.
 */
export async function sweep(input: IngestionInput, current?: string): Promise<void> {
  const staging = stagingDir(input.storageRoot, input.datasetId);
  for (const name of await readdir(staging).catch(() => [] as string[]))
    if (!current || (name !== current && name !== `${current}.parts`)) await removeTree(join(staging, name));
  const versions = versionsDir(input.storageRoot, input.datasetId);
  const names = await readdir(versions).catch(() => [] as string[]);
  for (const name of names) if (!input.keepVersions.includes(name)) await removeTree(join(versions, name));
  // Each retained version keeps the thumbnail rendered with it (`/datasets/{id}@{version}/thumbnail.png`).
  const keep = [
    input.keepThumbnail,
    ...[...input.keepVersions, ...(current ? [current] : [])].map((v) => thumbnailPath(input.datasetId, v)),
  ];
  const thumbnails = thumbnailsDir(input.storageRoot, input.datasetId);
  for (const name of await readdir(thumbnails).catch(() => [] as string[]))
    if (!keep.includes(['datasets', input.datasetId, 'thumbnails', name].join('/')))
      await removeTree(join(thumbnails, name));
}

/**
 * Renders the preview of the last period next to the version. A failed or empty render returns undefined, and
 * the Dataset keeps showing its previous image.
 */
export async function renderPreview(input: IngestionInput, version: string, grid: RasterGrid, values: Float32Array) {
  try {
    const png = renderGridThumbnail(values, grid, {
      colormap: input.display.colormap ?? DEFAULT_COLORMAP,
      range: input.display.range,
      nodata: input.display.nodata,
    });
    if (!png) return undefined;
    const path = thumbnailPath(input.datasetId, version);
    await writeFileAtomic(storeFile(input.storageRoot, path), png);
    return path;
  } catch {
    return undefined;
  }
}

/** Opens the source's provider for `periods`, with the credentials the runner put in the environment. */
export async function openProvider(
  input: IngestionInput,
  context: TaskContext,
  periods: Period[],
): Promise<RasterSession> {
  const provider = rasterProvider(input.provider.name);
  if (!provider)
    throw new RunError('ProviderUnavailable', `No provider named ${input.provider.name} on this instance.`);
  const { username, password } = workerCredentials();
  return provider.open({
    parameters: input.provider.parameters,
    bbox: input.bbox,
    signal: context.signal,
    periods,
    ...(username !== undefined && password !== undefined && { credentials: { username, password } }),
  });
}

/** What the version's cube holds and says about itself (CF global attributes included). */
export function cubeDescription(
  input: IngestionInput,
  now: Date,
  periods: Period[],
  grid: RasterGrid,
): RasterCubeDescription {
  return {
    variable: input.dataset.variable,
    units: input.dataset.units,
    longName: input.dataset.name,
    periodType: input.dataset.periodType!,
    periods,
    grid,
    attributes: {
      title: input.dataset.name,
      ...(input.dataset.source && { source: input.dataset.source }),
      ...(input.dataset.sourceUrl && { references: input.dataset.sourceUrl }),
      ...(input.dataset.license && { license: input.dataset.license }),
      history: `${now.toISOString()} Stratus ingestion ${input.run} attempt ${input.attempt}`,
    },
  };
}
