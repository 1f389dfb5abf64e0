/**
 * Publishing a build (`build.ts`) as a table version: a full build writes every year; an incremental one reads the
 * previous version's years of the computed periods only, keeps their other rows, rewrites those years, and
 * hard-links every other year (`table-file.ts`). A full build also writes the digest of the version's download
 * (`download-digest.ts`); an incremental one leaves it to the first delivery that needs it.
 */
import { periodKey, type AnalyticsBuild } from './build.ts';
import { writeDownloadDigest } from './download-digest.ts';
import { readAnalyticsTable, writeAnalyticsTableVersion, yearOfPeriod } from './table-file.ts';

export interface PublishedTable {
  /** Rows of the whole version. */
  rows: number;
  /** Years written anew and years linked from the previous version. */
  written: string[];
  linked: string[];
}

export async function publishAnalyticsBuild(
  build: Pick<AnalyticsBuild, 'rows' | 'periods' | 'open'>,
  at: { staging: string; target: string },
  /** The version an incremental build extends: its directory and its row count. */
  previous?: { dir: string; rows: number },
  signal?: AbortSignal,
): Promise<PublishedTable> {
  const options = { ...(build.open && { open: build.open }), ...(signal && { signal }) };
  if (!previous) {
    const files = await writeAnalyticsTableVersion(at.staging, at.target, build.rows, options);
    await writeDownloadDigest(at.target, build.rows);
    return { rows: build.rows.length, ...files };
  }
  const years = new Set([...build.periods].map((key) => yearOfPeriod(key.slice(key.indexOf('/') + 1))));
  const replaced = await readAnalyticsTable(previous.dir, years);
  const kept = replaced.filter((row) => !build.periods.has(periodKey(row.periodType, row.pe)));
  const rows = [...kept, ...build.rows];
  const linked = { from: previous.dir, except: years };
  const files = await writeAnalyticsTableVersion(at.staging, at.target, rows, { ...options, linked });
  return { rows: previous.rows - replaced.length + rows.length, ...files };
}
