/**
 * Publishing a build (`build.ts`) as a table version: a full build writes every file; an incremental one reads the
 * previous version's files of the computed periods only (a month's rows, `table-file.ts`), puts the computed
 * periods' rows in place of theirs, rewrites those files, and hard-links every other file. A year the previous
 * version holds as one file (the layout before months were split) is read whole and written split when one of its
 * periods is computed. The rows stay columns throughout. A full build also writes the digest of the version's
 * download (`download-digest.ts`); an incremental one leaves it to the first delivery that needs it.
 */
import type { AnalyticsBuild } from './build.ts';
import { writeDownloadDigest } from './download-digest.ts';
import {
  analyticsTableFiles,
  columnsByFile,
  mergeColumns,
  readAnalyticsColumns,
  writeAnalyticsTableVersion,
  yearLayoutFile,
  type AnalyticsColumns,
} from './table-file.ts';

export interface PublishedTable {
  /** Rows of the whole version. */
  rows: number;
  /** Files (`year=2024/03.parquet`) written anew and files linked from the previous version. */
  written: string[];
  linked: string[];
}

export async function publishAnalyticsBuild(
  build: Pick<AnalyticsBuild, 'columns' | 'periods'> & Partial<Pick<AnalyticsBuild, 'open'>>,
  at: { staging: string; target: string },
  /** The version an incremental build extends: its directory and its row count. */
  previous?: { dir: string; rows: number },
  signal?: AbortSignal,
): Promise<PublishedTable> {
  const options = { ...(build.open && { open: build.open }), ...(signal && { signal }) };
  const files = columnsByFile(build.columns);
  if (!previous) {
    const written = await writeAnalyticsTableVersion(at.staging, at.target, files, options);
    await writeDownloadDigest(at.target, build.columns);
    return { rows: build.columns.ou.length, ...written };
  }
  // The computed periods' ids by period type: a lookup per row of a rewritten file, without making its key.
  const computedIds = new Map<string, Set<string>>();
  for (const key of build.periods) {
    const type = key.slice(0, key.indexOf('/'));
    if (!computedIds.has(type)) computedIds.set(type, new Set());
    computedIds.get(type)!.add(key.slice(type.length + 1));
  }
  const previousFiles = new Set(await analyticsTableFiles(previous.dir));
  // The previous rows of the files to write: a year of the earlier layout is split, and all its files written.
  const bases = new Map<string, AnalyticsColumns>();
  const unlinked = new Set<string>();
  for (const yearFile of new Set([...files.keys()].map(yearLayoutFile))) {
    if (!previousFiles.has(yearFile)) continue;
    for (const [file, rows] of columnsByFile(await readAnalyticsColumns(previous.dir, yearFile))) bases.set(file, rows);
    unlinked.add(yearFile);
  }
  let rows = previous.rows;
  for (const [file, computed] of files) {
    // A file the previous version does not hold is the computed rows alone.
    const base =
      bases.get(file) ?? (previousFiles.has(file) ? await readAnalyticsColumns(previous.dir, file) : undefined);
    bases.delete(file);
    const merged = base
      ? mergeColumns(base, (i) => computedIds.get(base.periodType[i]!)?.has(base.pe[i]!) === true, computed)
      : computed;
    rows += merged.ou.length - (base?.ou.length ?? 0);
    files.set(file, merged);
  }
  for (const [file, base] of bases) files.set(file, base);
  const linked = { from: previous.dir, except: unlinked };
  return { rows, ...(await writeAnalyticsTableVersion(at.staging, at.target, files, { ...options, linked })) };
}
