import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cubeOf, spatial, temporal } from '../../test/support/cubes.ts';
import { buildAnalytics, periodKey, type AnalyticsBuild, type OrgUnitCells } from './build.ts';
import { decodeOpenPeriods, encodeOpenPeriods, type OpenPeriods } from './open-periods.ts';
import { publishAnalyticsBuild } from './publish.ts';
import { readAnalyticsTable, readOpenPeriods, type AnalyticsColumns } from './table-file.ts';

const NY = 4;
const NX = 5;
const CHUNK = [8, 1, 3, 3];
const DAYS = Array.from({ length: 75 }, (_, t) => new Date(Date.UTC(2023, 11, 20 + t)).toISOString().slice(0, 10));

/** Values that no binary fraction holds exactly, with gaps, so the order of additions shows in the last bits. */
const value = (t: number, cell: number, rewritten?: number) =>
  (t + cell) % 11 === 0 ? NaN : ((t * 7919 + cell * 104729) % 1000) / 7 + (t === rewritten ? 0.1 : 0);

/** The dataset's first `days` days (with `rewritten` changed): a dataset version. */
function cube(days: number, rewritten?: number) {
  const dims = [temporal(DAYS.slice(0, days)), { name: 'bands', type: 'bands' as const, labels: ['v'] }];
  const ys = Array.from({ length: NY }, (_, i) => 10 - i);
  const xs = Array.from({ length: NX }, (_, i) => i);
  return cubeOf(
    [...dims, spatial('y', ys, 'EPSG:4326'), spatial('x', xs, 'EPSG:4326')],
    (i) => value(Math.floor(i / (NY * NX)), i % (NY * NX), rewritten),
    { chunkShape: CHUNK },
  );
}

const orgUnits: OrgUnitCells[] = [
  { id: 'A', cells: { cells: [0, 1, 5, 6, 7], weights: [1, 0.5, 0.25, 1, 0.3] } },
  { id: 'B', cells: { cells: [3, 4, 8, 9, 13, 14, 19], weights: [0.7, 1, 1, 0.9, 0.1, 1, 0.6] } },
  { id: 'C', cells: { cells: [10, 15, 16], weights: [0.2, 1, 0.4] } },
  { id: 'D', cells: null },
];

const options = {
  sourceVersion: 'v',
  orgUnits,
  periodTypes: ['weekly', 'monthly', 'yearly'],
  statistics: ['mean', 'sum', 'min', 'max', 'count'],
} as const;

/** A build's values by org unit, period and statistic (NaN: no value). */
function valuesOf({ columns: c }: { columns: AnalyticsColumns }) {
  return new Map(c.ou.map((ou, i) => [`${ou}/${periodKey(c.periodType[i]!, c.pe[i]!)}/${c.stat[i]}`, c.value[i]!]));
}

/** A table's rows by key, as a version holds them: a build replaces every row of the periods it computed. */
function apply(table: Map<string, number>, build: AnalyticsBuild) {
  for (const key of [...table.keys()])
    if (build.periods.has(key.slice(key.indexOf('/') + 1, key.lastIndexOf('/')))) table.delete(key);
  for (const [key, value] of valuesOf(build)) table.set(key, value);
}

/** What a version keeps and the next build reads: through the file's form. */
const kept = (build: AnalyticsBuild): OpenPeriods => decodeOpenPeriods(encodeOpenPeriods(build.open!));

describe('analytics build: appended days fold into the open periods', () => {
  it('equals a full build to the last bit, appending days one by one across weeks, months and a year', async () => {
    let previous = await buildAnalytics({ ...options, cube: cube(10) });
    const table = valuesOf(previous);
    for (let days = 11; days <= DAYS.length; days++) {
      const end = previous.days!.end;
      const update = await buildAnalytics({
        ...options,
        cube: cube(days),
        changed: (day) => day > end,
        open: kept(previous),
      });
      apply(table, update);
      const full = await buildAnalytics({ ...options, cube: cube(days) });
      expect(Object.fromEntries(table), `after day ${DAYS[days - 1]}`).toEqual(Object.fromEntries(valuesOf(full)));
      // Only the new day's time chunk is read: the earlier days of its month and year are not read again.
      expect(update.cellsRead).toBeLessThanOrEqual(CHUNK[0]! * NY * NX);
      previous = update;
    }
  });

  it('computes a period whose earlier day was rewritten from all its days, and folds the others', async () => {
    // The table ends on Saturday 2024-01-27; Sunday is appended and 2024-01-10, of an earlier week, rewritten.
    const previous = await buildAnalytics({ ...options, cube: cube(39) });
    const end = previous.days!.end;
    const rewritten = DAYS.indexOf('2024-01-10');
    const next = cube(40, rewritten);
    const update = await buildAnalytics({
      ...options,
      cube: next,
      changed: (day) => day > end || day === DAYS[rewritten],
      open: kept(previous),
    });
    const table = valuesOf(previous);
    apply(table, update);
    expect(Object.fromEntries(table)).toEqual(
      Object.fromEntries(valuesOf(await buildAnalytics({ ...options, cube: next }))),
    );
    // January and 2024 hold the rewritten day and are computed whole; the week of the new day folds it in.
    expect(update.folded).toBe(1);
  });

  it('publishes, day by day into a new month and a new year, the files of a full build', async () => {
    const root = await mkdtemp(join(tmpdir(), 'stratus-analytics-fold-'));
    try {
      const at = (id: string) => ({ staging: join(root, 'staging'), target: join(root, id) });
      let build = await buildAnalytics({ ...options, cube: cube(5) });
      let previous = { dir: join(root, 'd5'), rows: (await publishAnalyticsBuild(build, at('d5'))).rows };
      for (let days = 6; days <= 45; days++) {
        const end = build.days!.end;
        build = await buildAnalytics({
          ...options,
          cube: cube(days),
          changed: (day) => day > end,
          open: await readOpenPeriods(previous.dir),
        });
        const { rows } = await publishAnalyticsBuild(build, at(`d${days}`), previous);
        previous = { dir: join(root, `d${days}`), rows };
      }
      const full = await buildAnalytics({ ...options, cube: cube(45) });
      const whole = await publishAnalyticsBuild(full, at('full'));
      expect(previous.rows).toBe(whole.rows);
      expect(await readAnalyticsTable(previous.dir)).toEqual(await readAnalyticsTable(join(root, 'full')));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
