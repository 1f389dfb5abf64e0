/**
 * The one module that knows an AnalyticsTable version's files (`table-columns.ts` gives their columns): a version is
 * a directory of one Parquet file per year of its period ids, in hive partitions (`year=2024/data.parquet`), so
 * DuckDB reads the directory as one table with a `year` column. A build writes the years whose rows changed and
 * hard-links the others from the previous version, in a staging directory that one rename publishes; readers read it
 * back in the contract's row order. Beside the years, `_open-periods.json` keeps the running statistics of the
 * periods holding the table's last day (`open-periods.ts`); its leading underscore keeps it out of what hive
 * readers (pyarrow, Spark) take for data.
 */
import { link, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { publishDirectory, removeTree, syncTree, writeDurable } from '../files/durable.ts';
import type { ExportPeriodType } from '../resources/export/schema.ts';
import { analyticsTableDir } from '../stores/layout.ts';
import type { AnalyticsStatistic } from '../resources/analytics-table/schema.ts';
import { decodeOpenPeriods, encodeOpenPeriods, type OpenPeriods } from './open-periods.ts';
import { analyticsTableColumns } from './table-columns.ts';

export interface AnalyticsRow {
  ou: string;
  periodType: ExportPeriodType;
  pe: string;
  stat: AnalyticsStatistic;
  value: number | null;
  sourceVersion: string;
}

/** Rows per row group: a reader filtering by org unit skips most groups of a large table. */
const ROW_GROUP_SIZE = 50_000;

/**
 * The columns whose min and max a reader skips row groups by (each group holds a few org units and their periods);
 * every group holds every statistic, so statistics of the other columns would cost a write and skip nothing.
 */
const FILTERED = new Set<string>(['ou', 'pe']);

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Period ids of one type in time order: ISO weeks by number (`2024W9` before `2024W10`), the others as text. */
export function comparePeriodIds(a: string, b: string): number {
  const weekA = /^(\d{4})W(\d{1,2})$/.exec(a);
  const weekB = weekA && /^(\d{4})W(\d{1,2})$/.exec(b);
  if (weekA && weekB) return Number(weekA[1]) - Number(weekB[1]) || Number(weekA[2]) - Number(weekB[2]);
  return compareText(a, b);
}

/** The contract's order: org unit, period type, period id (in time order), statistic. */
export function compareRows(a: AnalyticsRow, b: AnalyticsRow): number {
  return (
    compareText(a.ou, b.ou) ||
    compareText(a.periodType, b.periodType) ||
    comparePeriodIds(a.pe, b.pe) ||
    compareText(a.stat, b.stat)
  );
}

export function encodeAnalyticsTable(rows: readonly AnalyticsRow[]): Uint8Array {
  const sorted = [...rows].sort(compareRows);
  const buffer = parquetWriteBuffer({
    columnData: analyticsTableColumns.map(({ name, type }) => ({
      name,
      type,
      nullable: name === 'value',
      statistics: FILTERED.has(name),
      data: sorted.map((row) => row[name]),
    })),
    rowGroupSize: ROW_GROUP_SIZE,
    createdBy: 'stratus',
  });
  return new Uint8Array(buffer);
}

/** The partition a period id falls in: its year (every DHIS2 period id starts with it: 20240105, 2024W5, 202401). */
export const yearOfPeriod = (pe: string) => pe.slice(0, 4);

const YEAR_PARTITION = /^year=(\d{4})$/;
const yearPartition = (year: string) => `year=${year}`;
const yearFile = (year: string) => join(yearPartition(year), 'data.parquet');

/**
 * Whether a version's path is a directory of year files; a version published before tables were partitioned is
 * one Parquet file, which is read whole and never extended.
 */
export const isPartitioned = (path: string) => !path.endsWith('.parquet');

/** The years a version holds, ascending. */
export async function analyticsTableYears(dir: string): Promise<string[]> {
  return (await readdir(dir)).flatMap((name) => YEAR_PARTITION.exec(name)?.[1] ?? []).sort();
}

async function readParquetRows(path: string): Promise<AnalyticsRow[]> {
  const bytes = await readFile(path);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return (await parquetReadObjects({ file })) as unknown as AnalyticsRow[];
}

/**
 * Merges year files (each in the contract's order) into the contract's order: within an org unit and period type,
 * the years follow one another, so each file's run of that pair is appended in year order.
 */
function mergeYears(years: readonly AnalyticsRow[][]): AnalyticsRow[] {
  if (years.length === 1) return years[0]!;
  const runs = new Map<string, { ou: string; periodType: string; slices: AnalyticsRow[][] }>();
  for (const rows of years)
    for (let start = 0; start < rows.length;) {
      const { ou, periodType } = rows[start]!;
      let end = start + 1;
      while (end < rows.length && rows[end]!.ou === ou && rows[end]!.periodType === periodType) end++;
      const key = `${ou}\0${periodType}`;
      let run = runs.get(key);
      if (!run) runs.set(key, (run = { ou, periodType, slices: [] }));
      run.slices.push(rows.slice(start, end));
      start = end;
    }
  const ordered = [...runs.values()].sort((a, b) => compareText(a.ou, b.ou) || compareText(a.periodType, b.periodType));
  return ordered.flatMap((run) => run.slices.flat());
}

/**
 * The rows of a version (of its `years` only, when given), in the contract's order: the API server's index and the
 * incremental build read it.
 */
export async function readAnalyticsTable(path: string, years?: ReadonlySet<string>): Promise<AnalyticsRow[]> {
  if (!isPartitioned(path)) return readParquetRows(path);
  const wanted = (await analyticsTableYears(path)).filter((year) => !years || years.has(year));
  return mergeYears(await Promise.all(wanted.map((year) => readParquetRows(join(path, yearFile(year))))));
}

const OPEN_PERIODS = '_open-periods.json';

/** The running statistics a version keeps of its open periods; undefined for a version written before it kept them. */
export async function readOpenPeriods(dir: string): Promise<OpenPeriods | undefined> {
  const text = await readFile(join(dir, OPEN_PERIODS), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  return text === undefined ? undefined : decodeOpenPeriods(text);
}

/** What a new version takes from the previous one: hard links to its year files but those of `except`. */
export interface LinkedYears {
  from: string;
  except: ReadonlySet<string>;
}

export interface VersionWriteOptions {
  linked?: LinkedYears;
  /** The running statistics of the version's open periods. */
  open?: OpenPeriods;
  /** The worker's runner is gone: the write stops. */
  signal?: AbortSignal;
}

/**
 * Publishes a version at `target`: one file per year of `rows`, plus `linked` years of the previous version (a
 * link, never a copy: the file stays shared, and removing either version leaves the other's whole), written into
 * `staging` and published by one rename, so a reader finds every year of the version or no version. A write that
 * fails or is aborted removes its staging directory before it ends.
 */
export async function writeAnalyticsTableVersion(
  staging: string,
  target: string,
  rows: readonly AnalyticsRow[],
  { linked, open, signal }: VersionWriteOptions = {},
): Promise<{ written: string[]; linked: string[] }> {
  await removeTree(staging);
  await mkdir(staging, { recursive: true });
  try {
    const byYear = new Map<string, AnalyticsRow[]>();
    for (const row of rows) {
      const year = yearOfPeriod(row.pe);
      let list = byYear.get(year);
      if (!list) byYear.set(year, (list = []));
      list.push(row);
    }
    for (const [year, yearRows] of byYear) {
      signal?.throwIfAborted();
      await writeDurable(join(staging, yearFile(year)), encodeAnalyticsTable(yearRows));
    }
    const links = linked
      ? (await analyticsTableYears(linked.from)).filter((year) => !linked.except.has(year) && !byYear.has(year))
      : [];
    for (const year of links) {
      await mkdir(join(staging, yearPartition(year)));
      await link(join(linked!.from, yearFile(year)), join(staging, yearFile(year)));
    }
    if (open) await writeDurable(join(staging, OPEN_PERIODS), encodeOpenPeriods(open));
    signal?.throwIfAborted();
    await syncTree(staging);
    await publishDirectory(staging, target);
    return { written: [...byYear.keys()].sort(), linked: links };
  } catch (err) {
    await removeTree(staging).catch(() => undefined);
    throw err;
  }
}

/**
 * Removes the versions of a table not in `keep` (directories, or the single file of a version from before
 * partitioning) and whatever a failed attempt left in staging. A year file linked into a kept version lives on there.
 */
export async function removeUnkeptVersions(root: string, table: string, keep: ReadonlySet<string>): Promise<void> {
  const dir = analyticsTableDir(root, table);
  for (const name of await readdir(join(dir, 'versions')))
    if (!keep.has(name.replace(/\.parquet$/, ''))) await removeTree(join(dir, 'versions', name));
  await removeTree(join(dir, 'staging'));
}
