import { requestedRange } from '../../../core/periods/index.ts';
import { unsplittableFormat } from '../../../core/stores/capabilities.ts';
import type { JobSpec } from '../../jobs/runner.ts';
import type { IngestionInput } from '../../worker/ingestion-input.ts';
import type { SplitOptions } from '../../../core/runs/options.ts';

/**
 * The parts of an attempt that workers write at once (Indexed Jobs on Kubernetes): one part per `periodsPerPart`
 * periods, at most `maxParts`, at most `parallelism` running at a time. Splitting pays when fetching dominates
 * (remote providers answer one period per request), as it does for long daily ranges. Undefined when it runs in one
 * worker: splitting is off, the range is short, the format is written by one worker (NetCDF, Icechunk), or a sync
 * continues a version (appends are short).
 */
export function partsOf(options: SplitOptions | undefined, input: IngestionInput, now: Date): JobSpec['parts'] {
  if (!options || options.periodsPerPart < 1 || options.maxParts < 2 || options.parallelism < 1) return undefined;
  if (input.base || unsplittableFormat(input.dataset) || !input.dataset.periodType) return undefined;
  const { periods } = requestedRange(input.dataset.periodType, input.start, input.end, now);
  const count = Math.min(options.maxParts, Math.ceil(periods.length / options.periodsPerPart));
  return count < 2 ? undefined : { count, parallelism: Math.min(options.parallelism, count) };
}
