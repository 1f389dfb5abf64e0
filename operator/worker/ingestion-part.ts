import { setImmediate as nextTurn } from 'node:timers/promises';
import { open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatPeriod } from '../../core/periods/index.ts';
import { readInOrder } from '../../core/providers/read-ahead.ts';
import { removeTree, writeFileAtomic } from '../../core/files/durable.ts';
import { newVersionId, stagingDir } from '../../core/stores/layout.ts';
import { unsplittableFormat, unsupportedFormat } from '../../core/stores/capabilities.ts';
import { versionParts } from '../../core/stores/open.ts';
import { RunError } from '../../core/runs/errors.ts';
import type { IngestionInput, IngestionResult } from './ingestion-input.ts';
import { cubeDescription, openProvider, renderPreview, requestedPeriods, sweep } from './ingestion-steps.ts';
import type { Part, TaskContext } from './protocol.ts';

/** What a part leaves beside the staged version once its periods are written: the preview, if it rendered it. */
interface PartMarker {
  thumbnail?: string;
}

/**
 * Takes the completion of the version for this worker: the first to create the claim file wins. A worker that
 * takes it and dies fails its pod, and so the attempt (split Jobs are not retried per part): it is never left
 * waiting for a completion that will not come.
 */
async function claimCompletion(markers: string): Promise<boolean> {
  try {
    await (await open(join(markers, 'completing'), 'wx')).close();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * One part of a split ingestion attempt (an index of an Indexed Job, or one of the embedded runner's processes).
 * Every part derives the same version: its id and periods from the input's `createdAt`, the grid from the
 * provider, the chunk shape from the number of parts. Each writes its own time blocks of chunks into the staging
 * directory, then a marker beside it. The part that finds every marker present completes the version (metadata,
 * publication) and returns the attempt's result; the other parts return null.
 */
export async function materializePart(
  input: IngestionInput,
  context: TaskContext,
  part: Part,
): Promise<IngestionResult | null> {
  if (!input.createdAt) throw new RunError('InvalidInput', 'a split ingestion attempt must name its createdAt');
  if (input.base) throw new RunError('InvalidInput', 'a sync that continues a version is not split into parts');
  const unsupported = unsupportedFormat(input.dataset) ?? unsplittableFormat(input.dataset);
  if (unsupported) throw new RunError('UnsupportedFormat', unsupported);
  const now = new Date(input.createdAt);
  const { periods, start, end } = requestedPeriods(input, now);
  const id = newVersionId(now, input.attempt);
  const markers = join(stagingDir(input.storageRoot, input.datasetId), `${id}.parts`);
  const label = `part ${part.index + 1} of ${part.count}`;

  let marker: PartMarker = {};
  const session = await openProvider(input, context, periods);
  try {
    const parts = versionParts(
      input.storageRoot,
      input.datasetId,
      id,
      input.dataset,
      part.count,
      cubeDescription(input, now, periods, session.grid),
    );
    const { from, to } = parts.periodsOf(part.index);
    const sink = parts.openPart(part.index);
    context.progress(0, periods.length, `${label}: fetching ${to - from} of ${periods.length} periods`);
    let last: Float32Array = new Float32Array();
    let done = 0;
    for await (const values of readInOrder(session, periods.slice(from, to))) {
      // A turn of the event loop a period lets a cancel message in (operator/worker/ingestion.ts).
      await nextTurn();
      context.throwIfCancelled();
      last = values;
      await sink.append(values);
      done++;
      context.progress(done, periods.length, `${label}: stored ${formatPeriod(periods[from + done - 1]!)}`);
    }
    await sink.finish();
    context.throwIfCancelled();
    // The preview shows the last period, which the last part holds.
    if (to === periods.length) {
      const thumbnail = await renderPreview(input, id, session.grid, last);
      if (thumbnail) marker = { thumbnail };
    }
    await writeFileAtomic(join(markers, String(part.index)), JSON.stringify(marker));
    // Every part writes its marker before it looks: the last to finish sees them all.
    const finished = (await readdir(markers)).filter((name) => /^\d+$/.test(name));
    if (finished.length < part.count || !(await claimCompletion(markers))) return null;

    for (const name of finished) {
      const other = JSON.parse(await readFile(join(markers, name), 'utf8')) as PartMarker;
      marker = { ...other, ...marker };
    }
    await sweep(input, id);
    const { coverage, ...published } = await parts.complete();
    await removeTree(markers);
    return {
      datasetId: input.datasetId,
      version: {
        id,
        createdAt: now.toISOString(),
        format: input.dataset.format,
        requestScope: { start, end, bbox: input.bbox },
        coverage,
        ...published,
      },
      ...(marker.thumbnail && { thumbnail: marker.thumbnail }),
    };
  } finally {
    await session.close?.();
  }
}
