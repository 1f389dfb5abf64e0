import { setImmediate as nextTurn } from 'node:timers/promises';
import { formatPeriod } from '../../core/periods/index.ts';
import { rasterProvider } from '../../core/providers/available.ts';
import { readInOrder } from '../../core/providers/read-ahead.ts';
import { newVersionId } from '../../core/stores/layout.ts';
import { canAppend, unsupportedFormat } from '../../core/stores/capabilities.ts';
import { openVersionWriter } from '../../core/stores/open.ts';
import type { Splice, VersionWriter } from '../../core/stores/store.ts';
import { RunError } from '../../core/runs/errors.ts';
import { ingestionInputSchema, type IngestionInput, type IngestionResult } from './ingestion-input.ts';
import { materializePart } from './ingestion-part.ts';
import {
  attemptTime,
  cubeDescription,
  openProvider,
  renderPreview,
  requestedPeriods,
  sweep,
} from './ingestion-steps.ts';
import type { Task, TaskContext } from './protocol.ts';
import { checkSameGrid, readSyncBase, unionOf } from './sync-base.ts';

async function materialize(input: IngestionInput, context: TaskContext): Promise<IngestionResult> {
  const now = attemptTime(input);
  const { periods, start, end } = requestedPeriods(input, now);
  const base = await readSyncBase(input);
  // Provenance: the periods this run fetched. What the version holds (with the base's periods) is its coverage.
  const requestScope = { start, end, bbox: input.bbox };
  const version = {
    createdAt: now.toISOString(),
    format: input.dataset.format,
    requestScope,
  };
  const unsupported = unsupportedFormat(input.dataset);
  if (unsupported) throw new RunError('UnsupportedFormat', unsupported);
  if (!rasterProvider(input.provider.name))
    throw new RunError('ProviderUnavailable', `No provider named ${input.provider.name} on this instance.`);

  await sweep(input);
  const id = newVersionId(now, input.attempt);
  let target: VersionWriter | undefined;
  try {
    const session = await openProvider(input, context, periods);
    try {
      if (base) checkSameGrid(base, session.grid);
      const union = base && unionOf(base, periods);
      target = await openVersionWriter(
        input.storageRoot,
        input.datasetId,
        id,
        input.dataset,
        base && { ...base, splice: union!.splice },
        cubeDescription(input, now, union ? union.periods : periods, session.grid),
      );
      context.progress(0, periods.length, `fetching ${periods.length} periods`);
      let last: Float32Array = new Float32Array();
      let index = 0;
      for await (const values of readInOrder(session, periods)) {
        // A turn of the event loop a period lets a cancel message in: periods read ahead and chunk writes left in
        // flight can make the loop run on resolved promises alone.
        await nextTurn();
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
        ...(union && { action: spliceAction(union.splice, base!.periods.length, canAppend(input.dataset)) }),
      };
    } finally {
      await session.close?.();
    }
  } catch (err) {
    await target?.discard();
    throw err;
  }
}

/**
 * How a version spliced from a base relates to it: periods after the base's only (appended, or the file rewritten
 * whole when the format cannot append), or stored periods rewritten (`update`).
 */
function spliceAction(splice: Splice, stored: number, appendable: boolean): NonNullable<IngestionResult['action']> {
  if (splice.offset !== 0 || splice.from !== stored) return 'update';
  return appendable ? 'append' : 'rematerialize';
}

/**
 * An ingestion attempt: fetch every requested period into a new version directory, published by one rename. A
 * split attempt's workers each do one part (`materializePart`).
 */
export const ingestion: Task = async (raw, context) => {
  const parsed = ingestionInputSchema.safeParse(raw);
  if (!parsed.success) throw new RunError('InvalidInput', `invalid ingestion input: ${parsed.error.message}`);
  return context.part ? materializePart(parsed.data, context, context.part) : materialize(parsed.data, context);
};
