import { formatPeriod, nextPeriod, parsePeriod, type PeriodType } from '../../../core/periods/index.ts';
import type { DatasetVersion } from '../../../core/resources/dataset/schema.ts';

/** What an ingestion into a dataset with a current version fetches, and whether it needs to fetch at all. */
export type UnionFetch =
  /** The current version holds every requested period already, on the same area. */
  | { kind: 'held' }
  /**
   * Fetch `range` and splice it into the current version: the requested periods, extended over the periods
   * between them and the stored ones, so that the new version's coverage has no gap.
   */
  | { kind: 'splice'; range: { start: string; end: string } };

/**
 * Decides an ingestion's fetch from the current version's realized coverage (never from the request that made
 * it): a range inside it is held (or, with `overwrite`, fetched again); a range overlapping, after or before it is
 * fetched with whatever lies between.
 */
export function unionFetch(
  type: PeriodType,
  current: Pick<DatasetVersion, 'coverage' | 'requestScope'>,
  requested: { start: string; end: string; bbox: [number, number, number, number] },
  overwrite: boolean,
): UnionFetch {
  const { start: storedStart, end: storedEnd } = current.coverage.temporal;
  if (storedStart == null || storedEnd == null) return { kind: 'splice', range: requested };
  const time = (text: string) => parsePeriod(type, text).start.getTime();
  const [first, last] = [time(requested.start), time(requested.end)];
  const sameArea = JSON.stringify(current.requestScope?.bbox) === JSON.stringify(requested.bbox);
  if (!overwrite && sameArea && first >= time(storedStart) && last <= time(storedEnd)) return { kind: 'held' };
  const afterStored = nextPeriod(parsePeriod(type, storedEnd));
  const beforeStored = parsePeriod(type, formatPeriod({ type, start: new Date(time(storedStart) - 1) }));
  return {
    kind: 'splice',
    range: {
      start: first > afterStored.start.getTime() ? formatPeriod(afterStored) : requested.start,
      end: last < beforeStored.start.getTime() ? formatPeriod(beforeStored) : requested.end,
    },
  };
}
