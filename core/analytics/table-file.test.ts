import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyticsTableDir, analyticsTablePath, analyticsTableStaging } from '../stores/layout.ts';
import {
  columnsByFile,
  columnsOfRows,
  compareRows,
  encodeAnalyticsTable,
  fileOfPeriod,
  isPartitioned,
  readAnalyticsTable,
  removeUnkeptVersions,
  writeAnalyticsTableVersion,
  type AnalyticsRow,
} from './table-file.ts';

const YEARS = ['2022', '2023', '2024'];

/** Two org units × the months and years of YEARS × two statistics, the value telling the version apart. */
function rows(sourceVersion: string, years = YEARS): AnalyticsRow[] {
  return ['B', 'A'].flatMap((ou) =>
    years.flatMap((year) => [
      ...['01', '02'].flatMap((month) =>
        (['sum', 'mean'] as const).map((stat) => ({
          ou,
          periodType: 'monthly' as const,
          pe: `${year}${month}`,
          stat,
          value: Number(year) + Number(month) / 100,
          sourceVersion,
        })),
      ),
      { ou, periodType: 'yearly' as const, pe: year, stat: 'sum' as const, value: null, sourceVersion },
    ]),
  );
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'analytics-table-file-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const publish = (id: string, table: AnalyticsRow[], linked?: { from: string; except: Set<string> }) =>
  writeAnalyticsTableVersion(
    analyticsTableStaging(root, 't', id),
    join(root, analyticsTablePath('t', id)),
    columnsByFile(columnsOfRows(table)),
    linked && { linked },
  );
const inode = async (id: string, file: string) => (await stat(join(root, analyticsTablePath('t', id), file))).ino;
/** The files of YEARS' rows: each year's months and the year's own file. */
const files = (years = YEARS) =>
  years.flatMap((year) => ['01', '02', 'year'].map((part) => `year=${year}/${part}.parquet`));

describe('analytics table files', () => {
  it('leaves no staging directory and publishes nothing when its write is aborted', async () => {
    const abort = new AbortController();
    const staging = analyticsTableStaging(root, 't', 'v1');
    const written = writeAnalyticsTableVersion(
      staging,
      join(root, analyticsTablePath('t', 'v1')),
      columnsByFile(columnsOfRows(rows('d1'))),
      {
        signal: abort.signal,
      },
    );
    // The worker's runner dies while the staging directory is being made: the abort lands before the first year.
    abort.abort();
    await expect(written).rejects.toThrow();
    await expect(stat(staging)).rejects.toThrow(/ENOENT/);
    await expect(stat(join(root, analyticsTablePath('t', 'v1')))).rejects.toThrow(/ENOENT/);
  });

  it('writes a file per month and one for the year in each year partition, and reads them back in the contract order', async () => {
    expect(await publish('v1', rows('d1'))).toEqual({ written: files(), linked: [] });
    expect((await readdir(join(root, analyticsTablePath('t', 'v1')))).sort()).toEqual(
      YEARS.map((year) => `year=${year}`),
    );
    expect(await readAnalyticsTable(join(root, analyticsTablePath('t', 'v1')))).toEqual(
      [...rows('d1')].sort(compareRows),
    );
  });

  it('writes only the changed files and hard-links the others from the previous version', async () => {
    await publish('v1', rows('d1'));
    const from = join(root, analyticsTablePath('t', 'v1'));
    const written = await publish('v2', rows('d2', ['2024']), { from, except: new Set() });
    expect(written).toEqual({ written: files(['2024']), linked: files(['2022', '2023']) });
    for (const file of files(['2022', '2023'])) expect(await inode('v2', file)).toBe(await inode('v1', file));
    for (const file of files(['2024'])) expect(await inode('v2', file)).not.toBe(await inode('v1', file));
    const table = await readAnalyticsTable(join(root, analyticsTablePath('t', 'v2')));
    expect(table).toEqual([...rows('d1', ['2022', '2023']), ...rows('d2', ['2024'])].sort(compareRows));
  });

  it('files a day and a month in their month, an ISO week in the month of its Thursday, a year apart', () => {
    expect(['20240105', '202412', '2024W4', '2024W5', '2020W1', '2026W53', '2024'].map(fileOfPeriod)).toEqual([
      'year=2024/01.parquet',
      'year=2024/12.parquet',
      'year=2024/01.parquet',
      'year=2024/02.parquet',
      'year=2020/01.parquet',
      'year=2026/12.parquet',
      'year=2024/year.parquet',
    ]);
  });

  it('reads weeks filed in several months back in time order', async () => {
    const weeks = ['2024W3', '2024W4', '2024W5', '2024W9', '2024W10', '2024W14'].flatMap((pe) =>
      ['B', 'A'].map((ou) => ({
        ou,
        periodType: 'weekly' as const,
        pe,
        stat: 'mean' as const,
        value: 1,
        sourceVersion: 'd1',
      })),
    );
    const table = [...weeks, ...rows('d1', ['2024'])];
    const written = await publish('v1', table);
    expect(written.written).toEqual(['01', '02', '03', '04', 'year'].map((part) => `year=2024/${part}.parquet`));
    expect(await readAnalyticsTable(join(root, analyticsTablePath('t', 'v1')))).toEqual([...table].sort(compareRows));
  });

  it('publishes a version whole: a reader during the write finds no version or every year of it', async () => {
    const target = join(root, analyticsTablePath('t', 'v1'));
    const seen = new Set<number>();
    let writing = true;
    const written = publish('v1', rows('d1')).finally(() => (writing = false));
    while (writing) {
      const names = await readdir(target).catch(() => []);
      seen.add(names.filter((name) => name.startsWith('year=')).length);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await written;
    seen.add((await readdir(target)).length);
    expect([...seen].filter((count) => count !== 0)).toEqual([YEARS.length]);
  });

  it('reads a version published before partitioning, one file, and removes it once retention drops it', async () => {
    const legacy = join(analyticsTableDir(root, 't'), 'versions', 'v0.parquet');
    await mkdir(dirname(legacy), { recursive: true });
    await writeFile(legacy, encodeAnalyticsTable(rows('d0')));
    expect(isPartitioned(legacy)).toBe(false);
    expect(await readAnalyticsTable(legacy)).toEqual([...rows('d0')].sort(compareRows));
    await publish('v1', rows('d1'));
    await removeUnkeptVersions(root, 't', new Set(['v0', 'v1']));
    expect((await readdir(dirname(legacy))).sort()).toEqual(['v0.parquet', 'v1']);
    await removeUnkeptVersions(root, 't', new Set(['v1']));
    expect(await readdir(dirname(legacy))).toEqual(['v1']);
  });

  it('removes the versions retention does not keep, and the files linked into a kept one stay whole', async () => {
    await publish('v1', rows('d1'));
    const from = join(root, analyticsTablePath('t', 'v1'));
    await publish('v2', rows('d2', ['2024']), { from, except: new Set() });
    await removeUnkeptVersions(root, 't', new Set(['v2']));
    expect(await readdir(join(analyticsTableDir(root, 't'), 'versions'))).toEqual(['v2']);
    expect(await readAnalyticsTable(join(root, analyticsTablePath('t', 'v2')))).toEqual(
      [...rows('d1', ['2022', '2023']), ...rows('d2', ['2024'])].sort(compareRows),
    );
  });
});
