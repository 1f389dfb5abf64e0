/**
 * The one module that knows an AnalyticsTable version's files (`table-columns.ts` gives their columns): a version is
 * a directory of hive partitions, one per year of its period ids (`year=2024/`), so DuckDB reads the directory as one
 * table with a `year` column. Within a year, each month's rows are a file (`03.parquet`: the days and the month, and
 * the ISO weeks whose Thursday falls in it) and the year's own row is another (`year.parquet`), so a build that
 * computes one month rewrites that month's rows alone. A version written before months were split holds one file per
 * year (`year=2024/data.parquet`); it is read as it is, and a build extending it splits the years it rewrites. A build
 * writes the files whose rows changed and hard-links the others from the previous version, in a staging directory
 * that one rename publishes; readers read it back in the contract's row order. Beside the years,
 * `_open-periods.json` keeps the running statistics of the periods holding the table's last day (`open-periods.ts`);
 * its leading underscore keeps it out of what hive readers (pyarrow, Spark) take for data.
 */
import { link, mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parquetMetadata, parquetRead, parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { publishDirectory, removeTree, syncTree, writeDurable } from '../files/durable.ts';
import type { ExportPeriodType } from '../resources/export/schema.ts';
import { parseDhis2Period } from '../periods/dhis2.ts';
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

/**
 * Rows as columns, in the contract's order: what a build produces and a version's file is written from and read back
 * as, without an object per row. `value` is NaN where the file holds null (no value).
 */
export interface AnalyticsColumns {
  ou: string[];
  periodType: ExportPeriodType[];
  pe: string[];
  stat: AnalyticsStatistic[];
  value: Float64Array;
  sourceVersion: string[];
}

const TEXT_COLUMNS = ['ou', 'periodType', 'pe', 'stat', 'sourceVersion'] as const;

/** Rows per row group: a reader filtering by org unit skips most groups of a large table. */
const ROW_GROUP_SIZE = 50_000;

/**
 * The columns whose min and max a reader skips row groups by (each group holds a few org units and their periods);
 * every group holds every statistic, so statistics of the other columns would cost a write and skip nothing.
 */
const FILTERED = new Set<string>(['ou', 'pe']);

export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

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

/** The contract's order of row `i` of `a` and row `j` of `b`. */
function compareAt(a: AnalyticsColumns, i: number, b: AnalyticsColumns, j: number): number {
  return (
    compareText(a.ou[i]!, b.ou[j]!) ||
    compareText(a.periodType[i]!, b.periodType[j]!) ||
    comparePeriodIds(a.pe[i]!, b.pe[j]!) ||
    compareText(a.stat[i]!, b.stat[j]!)
  );
}

/** Columns of `length` rows, to be filled. */
export function emptyColumns(length: number): AnalyticsColumns {
  return {
    ou: new Array<string>(length),
    periodType: new Array<ExportPeriodType>(length),
    pe: new Array<string>(length),
    stat: new Array<AnalyticsStatistic>(length),
    value: new Float64Array(length),
    sourceVersion: new Array<string>(length),
  };
}

function copyRow(from: AnalyticsColumns, i: number, to: AnalyticsColumns, k: number): void {
  to.ou[k] = from.ou[i]!;
  to.periodType[k] = from.periodType[i]!;
  to.pe[k] = from.pe[i]!;
  to.stat[k] = from.stat[i]!;
  to.value[k] = from.value[i]!;
  to.sourceVersion[k] = from.sourceVersion[i]!;
}

/** Rows in the contract's order, as columns. */
export function columnsOfRows(rows: readonly AnalyticsRow[]): AnalyticsColumns {
  const sorted = [...rows].sort(compareRows);
  const columns = emptyColumns(sorted.length);
  sorted.forEach((row, k) => {
    for (const name of TEXT_COLUMNS) (columns[name] as string[])[k] = row[name];
    columns.value[k] = row.value ?? NaN;
  });
  return columns;
}

/**
 * The rows of `base` but those `replaced` says, and every row of `added`, in the contract's order (both are in it):
 * an incremental build's year, its computed periods' rows put in place of the previous version's. When they take
 * exactly the places of the replaced rows (days folded into periods the year holds), they are written over them in
 * `base`, which is returned.
 */
export function mergeColumns(
  base: AnalyticsColumns,
  replaced: (row: number) => boolean,
  added: AnalyticsColumns,
): AnalyticsColumns {
  const kept: number[] = [];
  const places: number[] = [];
  for (let i = 0; i < base.ou.length; i++) (replaced(i) ? places : kept).push(i);
  if (places.length === added.ou.length && places.every((i, j) => compareAt(base, i, added, j) === 0)) {
    places.forEach((i, j) => {
      base.value[i] = added.value[j]!;
      base.sourceVersion[i] = added.sourceVersion[j]!;
    });
    return base;
  }
  const merged = emptyColumns(kept.length + added.ou.length);
  let [i, j, k] = [0, 0, 0];
  while (i < kept.length || j < added.ou.length)
    if (j === added.ou.length || (i < kept.length && compareAt(base, kept[i]!, added, j) < 0))
      copyRow(base, kept[i++]!, merged, k++);
    else copyRow(added, j++, merged, k++);
  return merged;
}

/** The rows of each file of a version (`year=2024/03.parquet`), by the period each row is of. */
export function columnsByFile(columns: AnalyticsColumns): Map<string, AnalyticsColumns> {
  const fileOf = new Map<string, string>();
  const rowsOf = new Map<string, number[]>();
  columns.pe.forEach((pe, i) => {
    let file = fileOf.get(pe);
    if (file === undefined) fileOf.set(pe, (file = fileOfPeriod(pe)));
    let list = rowsOf.get(file);
    if (!list) rowsOf.set(file, (list = []));
    list.push(i);
  });
  return new Map(
    [...rowsOf].map(([file, rows]) => {
      const part = emptyColumns(rows.length);
      rows.forEach((i, k) => copyRow(columns, i, part, k));
      return [file, part];
    }),
  );
}

/**
 * A file of `columns` (in the contract's order). Text columns are dictionary-encoded (few distinct values, many
 * repeats); values are mostly distinct doubles, so they are written plain and uncompressed: a dictionary or snappy
 * would shrink them little, and snappy costs much of the time an incremental build spends rewriting a year.
 */
export function encodeAnalyticsColumns(columns: AnalyticsColumns): Uint8Array {
  const values = columns.value.some((v) => v !== v)
    ? Array.from(columns.value, (v) => (v === v ? v : null))
    : columns.value;
  const buffer = parquetWriteBuffer({
    columnData: analyticsTableColumns.map(({ name, type }) => ({
      name,
      type,
      nullable: name === 'value',
      statistics: FILTERED.has(name),
      data: name === 'value' ? values : columns[name],
      encoding: name === 'value' ? 'PLAIN' : 'RLE_DICTIONARY',
      ...(name === 'value' && { codec: 'UNCOMPRESSED' as const }),
    })),
    rowGroupSize: ROW_GROUP_SIZE,
    createdBy: 'stratus',
  });
  return new Uint8Array(buffer);
}

export function encodeAnalyticsTable(rows: readonly AnalyticsRow[]): Uint8Array {
  return encodeAnalyticsColumns(columnsOfRows(rows));
}

const YEAR_PARTITION = /^year=(\d{4})$/;
const yearPartition = (year: string) => `year=${year}`;
/** The one file of the year of `file` in a version written before months were split. */
export const yearLayoutFile = (file: string) => join(dirname(file), 'data.parquet');

/**
 * The file of a version that holds a period's rows, by its DHIS2 id (every id starts with its year: 20240105,
 * 2024W5, 202401, 2024): its month's file for a day or a month, the file of the month of its Thursday for an ISO
 * week (the Thursday is always in the year of the week's id), the year's own file for a year.
 */
export function fileOfPeriod(pe: string): string {
  const year = pe.slice(0, 4);
  let part = 'year';
  const period = parseDhis2Period(pe);
  if (period?.type === 'weekly') {
    const thursday = new Date(period.start.getTime() + 3 * 86_400_000);
    part = String(thursday.getUTCMonth() + 1).padStart(2, '0');
  } else if (pe.length > 4) part = pe.slice(4, 6);
  return join(yearPartition(year), `${part}.parquet`);
}

/**
 * Whether a version's path is a directory of year partitions; a version published before tables were partitioned
 * is one Parquet file, which is read whole and never extended.
 */
export const isPartitioned = (path: string) => !path.endsWith('.parquet');

/**
 * A version's data files, relative to its directory, in the order that puts their rows in the contract's: years
 * ascending, and within a year the months before the year's own file (`01.parquet` ... `12.parquet`,
 * `year.parquet`; a year of the earlier layout holds `data.parquet` alone).
 */
export async function analyticsTableFiles(dir: string): Promise<string[]> {
  const years = (await readdir(dir)).filter((name) => YEAR_PARTITION.test(name)).sort();
  const files = await Promise.all(
    years.map(async (year) =>
      (await readdir(join(dir, year)))
        .filter((name) => name.endsWith('.parquet'))
        .sort()
        .map((name) => join(year, name)),
    ),
  );
  return files.flat();
}

async function readParquetRows(path: string): Promise<AnalyticsRow[]> {
  const bytes = await readFile(path);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return (await parquetReadObjects({ file })) as unknown as AnalyticsRow[];
}

/** A file of a version (`file` as `analyticsTableFiles` names it; in the contract's order) as columns. */
export async function readAnalyticsColumns(dir: string, file: string): Promise<AnalyticsColumns> {
  const bytes = await readFile(join(dir, file));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const metadata = parquetMetadata(buffer);
  const columns = emptyColumns(Number(metadata.num_rows));
  await parquetRead({
    file: buffer,
    metadata,
    onChunk: ({ columnName, columnData, rowStart }) => {
      if (columnName === 'value')
        for (let i = 0; i < columnData.length; i++)
          columns.value[rowStart + i] = (columnData[i] as number | null) ?? NaN;
      else {
        const target = columns[columnName as (typeof TEXT_COLUMNS)[number]] as unknown[];
        for (let i = 0; i < columnData.length; i++) target[rowStart + i] = columnData[i];
      }
    },
  });
  return columns;
}

/**
 * Merges a version's files (each in the contract's order, given in `analyticsTableFiles`' order) into the
 * contract's order: within an org unit and period type, the files' periods follow one another, so each file's run of
 * that pair is appended in file order.
 */
function mergeFiles(files: readonly AnalyticsRow[][]): AnalyticsRow[] {
  if (files.length === 1) return files[0]!;
  const runs = new Map<string, { ou: string; periodType: string; slices: AnalyticsRow[][] }>();
  for (const rows of files)
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

/** The rows of a version, in the contract's order: the API server's index and a delivery read it. */
export async function readAnalyticsTable(path: string): Promise<AnalyticsRow[]> {
  if (!isPartitioned(path)) return readParquetRows(path);
  const files = await analyticsTableFiles(path);
  return mergeFiles(await Promise.all(files.map((file) => readParquetRows(join(path, file)))));
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

/** What a new version takes from the previous one: hard links to its files but those of `except`. */
export interface LinkedFiles {
  from: string;
  except: ReadonlySet<string>;
}

export interface VersionWriteOptions {
  linked?: LinkedFiles;
  /** The running statistics of the version's open periods. */
  open?: OpenPeriods;
  /** The worker's runner is gone: the write stops. */
  signal?: AbortSignal;
}

/**
 * Publishes a version at `target`: `files` (by their path in the version, as `columnsByFile` names them), plus the
 * `linked` files of the previous version that it does not write (a link, never a copy: the file stays shared, and
 * removing either version leaves the other's whole), written into `staging` and published by one rename, so a
 * reader finds every file of the version or no version. A write that fails or is aborted removes its staging
 * directory before it ends.
 */
export async function writeAnalyticsTableVersion(
  staging: string,
  target: string,
  files: ReadonlyMap<string, AnalyticsColumns>,
  { linked, open, signal }: VersionWriteOptions = {},
): Promise<{ written: string[]; linked: string[] }> {
  await removeTree(staging);
  await mkdir(staging, { recursive: true });
  try {
    for (const [file, columns] of files) {
      signal?.throwIfAborted();
      await writeDurable(join(staging, file), encodeAnalyticsColumns(columns));
    }
    const links = linked
      ? (await analyticsTableFiles(linked.from)).filter((file) => !linked.except.has(file) && !files.has(file))
      : [];
    const made = new Set<string>();
    for (const file of links) {
      if (!made.has(dirname(file))) await mkdir(join(staging, dirname(file)), { recursive: true });
      made.add(dirname(file));
      await link(join(linked!.from, file), join(staging, file));
    }
    if (open) await writeDurable(join(staging, OPEN_PERIODS), encodeOpenPeriods(open));
    signal?.throwIfAborted();
    await syncTree(staging);
    await publishDirectory(staging, target);
    return { written: [...files.keys()].sort(), linked: links };
  } catch (err) {
    await removeTree(staging).catch(() => undefined);
    throw err;
  }
}

/**
 * Removes the versions of a table not in `keep` (directories, or the single file of a version from before
 * partitioning) and whatever a failed attempt left in staging. A file linked into a kept version lives on there.
 */
export async function removeUnkeptVersions(root: string, table: string, keep: ReadonlySet<string>): Promise<void> {
  const dir = analyticsTableDir(root, table);
  for (const name of await readdir(join(dir, 'versions')))
    if (!keep.has(name.replace(/\.parquet$/, ''))) await removeTree(join(dir, 'versions', name));
  await removeTree(join(dir, 'staging'));
}
