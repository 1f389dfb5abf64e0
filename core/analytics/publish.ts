/**
 * Publishing a build (`build.ts`) as a table version: a full build writes every year; an incremental one reads the
 * previous version's years of the computed periods only, puts the computed periods' rows in place of theirs,
 * rewrites those years, and hard-links every other year (`table-file.ts`). The rows stay columns throughout. A full
 * build also writes the digest of the version's download (`download-digest.ts`); an incremental one leaves it to the
 * first delivery that needs it.
 */
import type { AnalyticsBuild } from './build.ts';
import { writeDownloadDigest } from './download-digest.ts';
import { columnsByYear, mergeColumns, readAnalyticsColumns, writeAnalyticsTableVersion } from './table-file.ts';

export interface PublishedTable {
  /** Rows of the whole version. */
  rows: number;
  /** Years written anew and years linked from the previous version. */
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
  const years = columnsByYear(build.columns);
  if (!previous) {
    const files = await writeAnalyticsTableVersion(at.staging, at.target, years, options);
    await writeDownloadDigest(at.target, build.columns);
    return { rows: build.columns.ou.length, ...files };
  }
  // The computed periods' ids by period type: a lookup per row of a rewritten year, without making its key.
  const computedIds = new Map<string, Set<string>>();
  for (const key of build.periods) {
    const type = key.slice(0, key.indexOf('/'));
    if (!computedIds.has(type)) computedIds.set(type, new Set());
    computedIds.get(type)!.add(key.slice(type.length + 1));
  }
  let rows = previous.rows;
  for (const [year, computed] of years) {
    // A year the previous version does not hold is the computed rows alone.
    const base = await readAnalyticsColumns(previous.dir, year).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    const merged = base
      ? mergeColumns(base, (i) => computedIds.get(base.periodType[i]!)?.has(base.pe[i]!) === true, computed)
      : computed;
    rows += merged.ou.length - (base?.ou.length ?? 0);
    years.set(year, merged);
  }
  const linked = { from: previous.dir, except: new Set(years.keys()) };
  return { rows, ...(await writeAnalyticsTableVersion(at.staging, at.target, years, { ...options, linked })) };
}
