import { readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_COLORMAP } from '../../core/render/colormap.ts';
import { renderThumbnail } from '../../core/render/thumbnail.ts';
import type { RasterGrid } from '../../core/providers/raster.ts';
import { formatPeriod, PeriodError, requestedRange } from '../../core/periods/index.ts';
import { rasterProvider } from '../../core/providers/available.ts';
import { readInOrder } from '../../core/providers/read-ahead.ts';
import { ProviderError } from '../../core/providers/raster.ts';
import { removeTree, writeDurable } from '../../core/stores/files.ts';
import {
  newVersionId,
  stagingDir,
  storeFile,
  thumbnailPath,
  thumbnailsDir,
  versionsDir,
} from '../../core/stores/layout.ts';
import { canAppend } from '../../core/stores/capabilities.ts';
import { openVersionWriter, unsupportedFormat, type VersionWriter } from '../../core/stores/cube-sink.ts';
import { CREDENTIALS_ENV, ingestionInputSchema, type IngestionInput, type IngestionResult } from './ingestion-input.ts';
import { TaskError, type Task, type TaskContext } from './protocol.ts';
import { checkSameGrid, continuedPeriods, readSyncBase } from './sync-base.ts';

function requestedPeriods(input: IngestionInput, now: Date) {
  const type = input.dataset.periodType;
  if (!type) throw new TaskError('InvalidRequest', `dataset ${input.datasetId} has no period type`);
  try {
    return requestedRange(type, input.start, input.end, now);
  } catch (err) {
    if (err instanceof PeriodError) throw new TaskError('InvalidRequest', err.message);
    throw err;
  }
}

/**
 * Crash leftovers never outlive the next run: the staging area is emptied, and version directories that the
 * Dataset no longer references are removed. Only one run writes a dataset at a time, so nothing here is live.
 */
async function sweep(input: IngestionInput): Promise<void> {
  await removeTree(stagingDir(input.storageRoot, input.datasetId));
  const versions = versionsDir(input.storageRoot, input.datasetId);
  const names = await readdir(versions).catch(() => [] as string[]);
  for (const name of names) if (!input.keepVersions.includes(name)) await removeTree(join(versions, name));
  const thumbnails = thumbnailsDir(input.storageRoot, input.datasetId);
  for (const name of await readdir(thumbnails).catch(() => [] as string[]))
    if (input.keepThumbnail !== ['datasets', input.datasetId, 'thumbnails', name].join('/'))
      await removeTree(join(thumbnails, name));
}

/**
 * Renders the preview of the last period next to the version. A failed or empty render returns undefined, and
 * the Dataset keeps showing its previous image.
 */
async function renderPreview(input: IngestionInput, version: string, grid: RasterGrid, values: Float32Array) {
  try {
    const png = renderThumbnail(values, grid.lon.length, grid.lat.length, {
      colormap: input.display.colormap ?? DEFAULT_COLORMAP,
      range: input.display.range,
      nodata: input.display.nodata,
    });
    if (!png) return undefined;
    const path = thumbnailPath(input.datasetId, version);
    const target = storeFile(input.storageRoot, path);
    await writeDurable(`${target}.tmp`, png);
    await rename(`${target}.tmp`, target);
    return path;
  } catch {
    return undefined;
  }
}

async function materialize(input: IngestionInput, context: TaskContext): Promise<IngestionResult> {
  const now = new Date();
  const { periods, start, end } = requestedPeriods(input, now);
  const base = await readSyncBase(input);
  const requestScope = { start: base?.periods[0] ? formatPeriod(base.periods[0]) : start, end, bbox: input.bbox };
  const version = {
    createdAt: now.toISOString(),
    format: input.dataset.format,
    requestScope,
  };
  const unsupported = unsupportedFormat(input.dataset);
  if (unsupported) throw new TaskError('UnsupportedFormat', unsupported);
  const provider = rasterProvider(input.provider.name);
  if (!provider)
    throw new TaskError('ProviderUnavailable', `No provider named ${input.provider.name} on this instance.`);

  await sweep(input);
  const id = newVersionId(now, input.attempt);
  let target: VersionWriter | undefined;
  try {
    const [username, password] = [process.env[CREDENTIALS_ENV.username], process.env[CREDENTIALS_ENV.password]];
    const session = await provider.open({
      parameters: input.provider.parameters,
      bbox: input.bbox,
      signal: context.signal,
      periods,
      ...(username !== undefined && password !== undefined && { credentials: { username, password } }),
    });
    try {
      if (base) checkSameGrid(base, session.grid);
      target = await openVersionWriter(input.storageRoot, input.datasetId, id, input.dataset, base, {
        variable: input.dataset.variable,
        units: input.dataset.units,
        longName: input.dataset.name,
        periodType: input.dataset.periodType!,
        periods: base ? continuedPeriods(base, periods) : periods,
        grid: session.grid,
        attributes: {
          title: input.dataset.name,
          ...(input.dataset.source && { source: input.dataset.source }),
          ...(input.dataset.sourceUrl && { references: input.dataset.sourceUrl }),
          ...(input.dataset.license && { license: input.dataset.license }),
          history: `${now.toISOString()} Stratus ingestion ${input.run} attempt ${input.attempt}`,
        },
      });
      context.progress(0, periods.length, `fetching ${periods.length} periods`);
      let last: Float32Array = new Float32Array();
      let index = 0;
      for await (const values of readInOrder(session, periods)) {
        context.throwIfCancelled();
        last = values;
        await target.sink.append(values);
        index++;
        context.progress(index, periods.length, `stored ${formatPeriod(periods[index - 1]!)}`);
      }
      const coverage = await target.sink.finish();
      context.throwIfCancelled();
      const published = await target.publish();
      const thumbnail = await renderPreview(input, id, session.grid, last);
      return {
        datasetId: input.datasetId,
        version: { ...version, id, coverage, ...published },
        ...(thumbnail && { thumbnail }),
        ...(base && { action: canAppend(input.dataset) ? ('append' as const) : ('rematerialize' as const) }),
      };
    } finally {
      await session.close?.();
    }
  } catch (err) {
    await target?.discard();
    if (err instanceof ProviderError) throw new TaskError(err.type, err.message);
    throw err;
  }
}

/** An ingestion attempt: fetch every requested period into a new version directory, published by one rename. */
export const ingestion: Task = async (raw, context) => {
  const parsed = ingestionInputSchema.safeParse(raw);
  if (!parsed.success) throw new TaskError('InvalidInput', `invalid ingestion input: ${parsed.error.message}`);
  return materialize(parsed.data, context);
};
