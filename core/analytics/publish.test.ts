import { DuckDBInstance } from '@duckdb/node-api';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publishAnalyticsBuild } from './publish.ts';
import {
  columnsOfRows,
  compareRows,
  encodeAnalyticsTable,
  readAnalyticsTable,
  yearLayoutFile,
  type AnalyticsRow,
} from './table-file.ts';

const MONTHS = ['01', '02', '03'];

/** Two org units × three months and the year of each of `years`, the value telling the dataset version apart. */
function rows(sourceVersion: string, years: string[], months = MONTHS, withYear = true): AnalyticsRow[] {
  return ['B', 'A'].flatMap((ou) =>
    years.flatMap((year) => [
      ...months.map((month) => ({
        ou,
        periodType: 'monthly' as const,
        pe: `${year}${month}`,
        stat: 'sum' as const,
        value: Number(year) + Number(month) / 100 + (sourceVersion === 'd2' ? 0.5 : 0),
        sourceVersion,
      })),
      ...(withYear
        ? [{ ou, periodType: 'yearly' as const, pe: year, stat: 'sum' as const, value: 1, sourceVersion }]
        : []),
    ]),
  );
}

/** A build that computed February 2024 and the year 2024 anew. */
const update = {
  columns: columnsOfRows(rows('d2', ['2024'], ['02'])),
  periods: new Set(['monthly/202402', 'yearly/2024']),
};
const updated = () => {
  const computed = rows('d2', ['2024'], ['02']);
  const key = (r: AnalyticsRow) => `${r.ou}/${r.pe}`;
  const keys = new Set(computed.map(key));
  return [...rows('d1', ['2023', '2024']).filter((r) => !keys.has(key(r))), ...computed].sort(compareRows);
};

async function duckRows(dir: string) {
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  const reader = await db.runAndReadAll(
    `SELECT ou, periodType, pe, stat, value, sourceVersion FROM read_parquet('${dir}/*/*.parquet', hive_partitioning = true)`,
  );
  return (reader.getRowObjectsJson() as unknown as AnalyticsRow[]).sort(compareRows);
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'analytics-publish-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});
const at = (id: string) => ({ staging: join(root, 'staging'), target: join(root, id) });
const inode = async (id: string, file: string) => (await stat(join(root, id, file))).ino;

describe('publishing an incremental build', () => {
  it('rewrites the files of the computed periods only: their month and their year', async () => {
    const full = rows('d1', ['2023', '2024']);
    await publishAnalyticsBuild({ columns: columnsOfRows(full), periods: new Set() }, at('v1'));
    const published = await publishAnalyticsBuild(update, at('v2'), { dir: join(root, 'v1'), rows: full.length });
    expect(published.written).toEqual(['year=2024/02.parquet', 'year=2024/year.parquet']);
    expect(published.linked).toEqual([
      ...['01', '02', '03', 'year'].map((part) => `year=2023/${part}.parquet`),
      'year=2024/01.parquet',
      'year=2024/03.parquet',
    ]);
    for (const file of published.linked) expect(await inode('v2', file)).toBe(await inode('v1', file));
    expect(published.rows).toBe(full.length);
    expect(await readAnalyticsTable(join(root, 'v2'))).toEqual(updated());
    expect(await duckRows(join(root, 'v2'))).toEqual(updated());
  });

  it('extends a version of one file per year: the rewritten year is split, the others linked, both read whole', async () => {
    const full = rows('d1', ['2023', '2024']);
    for (const year of ['2023', '2024']) {
      const file = join(root, 'v1', yearLayoutFile(`year=${year}/01.parquet`));
      await mkdir(join(file, '..'), { recursive: true });
      await writeFile(file, encodeAnalyticsTable(full.filter((r) => r.pe.startsWith(year))));
    }
    expect(await readAnalyticsTable(join(root, 'v1'))).toEqual([...full].sort(compareRows));
    expect(await duckRows(join(root, 'v1'))).toEqual([...full].sort(compareRows));
    const published = await publishAnalyticsBuild(update, at('v2'), { dir: join(root, 'v1'), rows: full.length });
    expect(published.written).toEqual(['01', '02', '03', 'year'].map((part) => `year=2024/${part}.parquet`));
    expect(published.linked).toEqual(['year=2023/data.parquet']);
    expect(await inode('v2', 'year=2023/data.parquet')).toBe(await inode('v1', 'year=2023/data.parquet'));
    await expect(stat(join(root, 'v2', 'year=2024/data.parquet'))).rejects.toThrow(/ENOENT/);
    expect(published.rows).toBe(full.length);
    expect(await readAnalyticsTable(join(root, 'v2'))).toEqual(updated());
    expect(await duckRows(join(root, 'v2'))).toEqual(updated());
  });
});
