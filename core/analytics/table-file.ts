/**
 * An AnalyticsTable's Parquet file (`table-columns.ts`): rows encoded in the contract's column order and sort
 * order, written atomically, and read back whole (the worker's incremental build and the API server's index).
 */
import { readFile } from 'node:fs/promises';
import { parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { writeFileAtomic } from '../files/durable.ts';
import type { ExportPeriodType } from '../exports/periods.ts';
import type { AnalyticsStatistic } from '../resources/analytics-table/schema.ts';
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
      data: sorted.map((row) => row[name]),
    })),
    rowGroupSize: ROW_GROUP_SIZE,
    createdBy: 'stratus',
  });
  return new Uint8Array(buffer);
}

export async function writeAnalyticsTable(path: string, rows: readonly AnalyticsRow[]): Promise<void> {
  await writeFileAtomic(path, encodeAnalyticsTable(rows));
}

export async function readAnalyticsTable(path: string): Promise<AnalyticsRow[]> {
  const bytes = await readFile(path);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return (await parquetReadObjects({ file })) as unknown as AnalyticsRow[];
}
