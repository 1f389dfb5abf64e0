import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { writeDownloadDigest, type DownloadDigest } from '../../../core/analytics/download-digest.ts';
import {
  columnsByFile,
  columnsOfRows,
  compareRows,
  writeAnalyticsTableVersion,
  type AnalyticsRow,
} from '../../../core/analytics/table-file.ts';
import { writeGeoParquet } from '../../../core/features/geoparquet.ts';
import {
  analyticsTableKind,
  type AnalyticsStatistic,
  type AnalyticsTable,
} from '../../../core/resources/analytics-table/schema.ts';
import { featureCollectionKind } from '../../../core/resources/feature-collection/schema.ts';
import { sha256Hex } from '../../../core/provenance/digest.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { analyticsTablePath, analyticsTableStaging } from '../../../core/stores/layout.ts';
import { build, type Built } from '../../test/build.ts';
import { ANALYTICS_ROW_LIMIT } from './index.ts';
import { analyticsAnswerSchema } from './schemas.ts';

/** Two regions of a country that is not in the collection, and their districts: DHIS2 org units of levels 2 and 3. */
const UNITS = [
  { code: 'R1', name: 'North', level: 2, parent_id: 'SL' },
  { code: 'R2', name: 'South', level: 2, parent_id: 'SL' },
  { code: 'D1', name: 'Hills', level: 3, parent_id: 'R1' },
  { code: 'D2', name: 'Coast', level: 3, parent_id: 'R1' },
  { code: 'D3', name: 'Delta', level: 3, parent_id: 'R2' },
];
const MONTHS = Array.from(
  { length: 24 },
  (_, i) => `${2023 + Math.floor(i / 12)}${String((i % 12) + 1).padStart(2, '0')}`,
);
const COLLECTION_PATH = 'features/districts/v1.parquet';
/** The fixed "today" of the relative periods. */
const TODAY = new Date('2024-07-15T10:00:00Z');

/** A value that tells its org unit, period and statistic apart. */
const valueOf = (unit: number, period: number, stat: 'mean' | 'sum') =>
  unit * 1000 + period + (stat === 'sum' ? 0.5 : 0);

function tableRows(sourceVersion: string, emptyPeriod?: string): AnalyticsRow[] {
  return UNITS.flatMap((unit, u) => [
    ...MONTHS.flatMap((pe, p) =>
      (['mean', 'sum'] as const).map((stat) => ({
        ou: unit.code,
        periodType: 'monthly' as const,
        pe,
        stat,
        value: pe === emptyPeriod ? null : valueOf(u, p, stat),
        sourceVersion,
      })),
    ),
    ...['2023', '2024'].flatMap((pe, p) =>
      (['mean', 'sum'] as const).map((stat) => ({
        ou: unit.code,
        periodType: 'yearly' as const,
        pe,
        stat,
        value: valueOf(u, 100 + p, stat),
        sourceVersion,
      })),
    ),
  ]);
}

const square = (x: number) => ({
  type: 'Polygon' as const,
  coordinates: [
    [
      [x, 8],
      [x + 0.5, 8],
      [x + 0.5, 8.5],
      [x, 8],
    ],
  ],
});

async function seedCollection({ cluster, storageRoot }: Built) {
  await cluster.create(featureCollectionKind, {
    apiVersion: API_VERSION,
    kind: 'FeatureCollection',
    metadata: { name: 'districts', namespace: 'default' },
    spec: { name: 'Districts', idProperty: 'code' },
  });
  await writeGeoParquet(
    join(storageRoot, COLLECTION_PATH),
    UNITS.map((properties, i) => ({ geometry: square(-13 + i * 0.5), properties })),
  );
}

async function createTable({ cluster }: Built, name = 'rain', statistics: AnalyticsStatistic[] = ['mean', 'sum']) {
  await cluster.create(analyticsTableKind, {
    apiVersion: API_VERSION,
    kind: 'AnalyticsTable',
    metadata: { name, namespace: 'default' },
    spec: {
      source: { dataset: 'chirps' },
      featureCollection: 'districts',
      periodTypes: ['monthly', 'yearly'],
      statistics,
    },
  });
}

/**
 * Writes a table version's files and serves it, as a finished build does; with its download's digest as a build
 * computes it, or with a given one.
 */
async function publish(
  built: Built,
  id: string,
  rows: AnalyticsRow[],
  name = 'rain',
  digest?: 'computed' | DownloadDigest,
) {
  const path = analyticsTablePath(name, id);
  const dir = join(built.storageRoot, path);
  const columns = columnsOfRows(rows);
  await writeAnalyticsTableVersion(analyticsTableStaging(built.storageRoot, name, id), dir, columnsByFile(columns));
  if (digest === 'computed') await writeDownloadDigest(dir, columns);
  else if (digest) await writeFile(join(dir, 'download.json'), JSON.stringify(digest));
  const version = {
    id,
    path,
    sourceVersion: rows[0]!.sourceVersion,
    featureCollectionPath: COLLECTION_PATH,
    generation: 1,
    rows: rows.length,
    periods: { start: '2023-01-01', end: '2024-12-31' },
    computedPeriods: 26,
    cellsRead: 100,
    publishedAt: '2024-07-01T00:00:00Z',
  };
  await built.cluster.patchStatus(
    analyticsTableKind,
    name,
    { type: 'merge', body: { status: { table: version, versions: [version] } } },
    'default',
  );
}

async function served(): Promise<Built> {
  const built = await build(undefined, { now: () => TODAY });
  await seedCollection(built);
  await createTable(built);
  await publish(built, 'v1', tableRows('dv1'));
  return built;
}

const get = async (built: Built, url: string, headers: Record<string, string> = {}) =>
  built.app.inject({ method: 'GET', url, headers });

/** The answer parsed as a DHIS2 client reads it: rows by header name. */
function parseAnswer(body: string) {
  const answer = analyticsAnswerSchema.parse(JSON.parse(body));
  const column = (name: string) => answer.headers.findIndex((h) => h.name === name);
  const [dx, ou, pe, value] = ['dx', 'ou', 'pe', 'value'].map(column) as [number, number, number, number];
  return {
    answer,
    rows: answer.rows.map((row) => ({ dx: row[dx], ou: row[ou], pe: row[pe], value: Number(row[value]) })),
  };
}

async function readWithDuckDb(bytes: Buffer, dir: string) {
  const path = join(dir, 'answer.parquet');
  await writeFile(path, bytes);
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  const reader = await db.runAndReadAll(`SELECT * FROM read_parquet('${path}') ORDER BY ou, pe, stat`);
  return reader.getRowObjectsJson();
}

/** Each query of table `rain` answers 400 with a detail that contains its text. */
async function expectBadRequests(built: Built, cases: readonly (readonly [string, string])[]) {
  for (const [query, detail] of cases) {
    const res = await get(built, `/analytics/rain?${query}`);
    expect(res.statusCode, query).toBe(400);
    expect(res.json().detail, query).toContain(detail);
  }
}

/** An answer with filters parsed as a DHIS2 client reads it: each row by its headers' names, whichever they are. */
function parseFiltered(body: string) {
  const answer = analyticsAnswerSchema.parse(JSON.parse(body));
  const rows = answer.rows.map((row) =>
    Object.fromEntries(answer.headers.map((h, i) => [h.name, h.name === 'value' ? Number(row[i]) : row[i]])),
  );
  expect([answer.width, answer.headerWidth, answer.height]).toEqual([
    answer.headers.length,
    answer.headers.length,
    rows.length,
  ]);
  for (const row of answer.rows) expect(row).toHaveLength(answer.headers.length);
  return { answer, rows, columns: answer.headers.map((h) => h.name) };
}

/** The statistics of a period as a build computes them from its days' values (null: a day without a value). */
function statisticsOfDays(days: (number | null)[]) {
  const values = days.filter((v): v is number => v !== null);
  const sum = values.reduce((a, b) => a + b, 0);
  return {
    mean: values.length ? sum / values.length : null,
    sum: values.length ? sum : null,
    min: values.length ? Math.min(...values) : null,
    max: values.length ? Math.max(...values) : null,
    count: values.length,
  };
}

describe('GET /analytics/{table}', () => {
  it("answers DHIS2 analytics' shape with the names of the org units and periods", async () => {
    const built = await served();
    const res = await get(built, '/analytics/rain?ou=D1;R2&pe=202401;2024&stat=sum');
    expect(res.statusCode).toBe(200);
    const { answer, rows } = parseAnswer(res.body);
    expect(answer.headers.map((h) => [h.name, h.column, h.valueType, h.meta])).toEqual([
      ['dx', 'Data', 'TEXT', true],
      ['ou', 'Organisation unit', 'TEXT', true],
      ['pe', 'Period', 'TEXT', true],
      ['value', 'Value', 'NUMBER', false],
    ]);
    expect(rows).toEqual([
      { dx: 'sum', ou: 'D1', pe: '202401', value: valueOf(2, 12, 'sum') },
      { dx: 'sum', ou: 'D1', pe: '2024', value: valueOf(2, 101, 'sum') },
      { dx: 'sum', ou: 'R2', pe: '202401', value: valueOf(1, 12, 'sum') },
      { dx: 'sum', ou: 'R2', pe: '2024', value: valueOf(1, 101, 'sum') },
    ]);
    expect(answer.metaData.dimensions).toEqual({ dx: ['sum'], ou: ['D1', 'R2'], pe: ['202401', '2024'], co: [] });
    expect(answer.metaData.items).toMatchObject({
      D1: { name: 'Hills' },
      R2: { name: 'South' },
      '202401': { name: '2024-01' },
      sum: { name: 'sum' },
    });
    expect([answer.width, answer.height, answer.headerWidth]).toEqual([4, 4, 4]);

    // Without ou: every org unit of the collection, each with its name.
    const all = parseAnswer((await get(built, '/analytics/rain?pe=202401&stat=mean')).body);
    expect(all.answer.metaData.dimensions.ou).toEqual(UNITS.map((u) => u.code));
    expect(all.answer.metaData.items).toMatchObject(Object.fromEntries(UNITS.map((u) => [u.code, { name: u.name }])));
    expect(all.rows.map((r) => r.ou)).toEqual(['D1', 'D2', 'D3', 'R1', 'R2']);
  });

  it('reads relative periods against the clock, as DHIS2 defines them', async () => {
    const built = await served();
    const periodsOf = async (pe: string) =>
      parseAnswer((await get(built, `/analytics/rain?ou=D1&stat=mean&pe=${pe}`)).body).answer.metaData.dimensions.pe;
    expect(await periodsOf('LAST_3_MONTHS')).toEqual(['202404', '202405', '202406']);
    expect(await periodsOf('THIS_MONTH;LAST_MONTH')).toEqual(['202407', '202406']);
    expect(await periodsOf('LAST_12_MONTHS')).toEqual(MONTHS.slice(6, 18));
    expect(await periodsOf('THIS_YEAR;LAST_YEAR')).toEqual(['2024', '2023']);
    expect(await periodsOf('LAST_4_WEEKS')).toEqual(['2024W25', '2024W26', '2024W27', '2024W28']);
    expect(await periodsOf('LAST_7_DAYS')).toEqual([
      '20240708',
      '20240709',
      '20240710',
      '20240711',
      '20240712',
      '20240713',
      '20240714',
    ]);
    const { rows } = parseAnswer((await get(built, '/analytics/rain?ou=D1&stat=mean&pe=LAST_3_MONTHS')).body);
    expect(rows.map((r) => [r.pe, r.value])).toEqual([
      ['202404', valueOf(2, 15, 'mean')],
      ['202405', valueOf(2, 16, 'mean')],
      ['202406', valueOf(2, 17, 'mean')],
    ]);
  });

  it('selects the org units of a level within a parent, DHIS2 style', async () => {
    const built = await served();
    const unitsOf = async (ou: string) => {
      const res = await get(built, `/analytics/rain?ou=${ou}&pe=202401&stat=mean`);
      expect(res.statusCode).toBe(200);
      return parseAnswer(res.body).rows.map((r) => r.ou);
    };
    expect(await unitsOf('R1;LEVEL-3')).toEqual(['D1', 'D2']);
    expect(await unitsOf('SL;LEVEL-3')).toEqual(['D1', 'D2', 'D3']);
    expect(await unitsOf('LEVEL-2')).toEqual(['R1', 'R2']);
    expect(await unitsOf('R2;LEVEL-3;R1')).toEqual(['D1', 'D2', 'D3']);
  });

  it("answers DHIS2's dimension= form as the ou, pe and stat parameters, and 400 naming a dimension given twice", async () => {
    const built = await served();
    for (const [dimensions, named] of [
      ['dimension=ou:D1;R2&dimension=pe:202401;2024&dimension=dx:sum', 'ou=D1;R2&pe=202401;2024&stat=sum'],
      ['dimension=pe:LAST_12_MONTHS&dimension=ou:R1;LEVEL-3', 'pe=LAST_12_MONTHS&ou=R1;LEVEL-3'],
      ['dimension=ou:D3&stat=mean', 'ou=D3&stat=mean'],
    ] as const) {
      const [byDimension, byName] = await Promise.all([
        get(built, `/analytics/rain?${dimensions}`),
        get(built, `/analytics/rain?${named}`),
      ]);
      expect(byDimension.statusCode, dimensions).toBe(200);
      expect(parseAnswer(byDimension.body).rows.length, dimensions).toBeGreaterThan(0);
      expect(byDimension.json(), dimensions).toEqual(byName.json());
      const parquet = await get(built, `/analytics/rain.parquet?${dimensions}`);
      const parquetByName = await get(built, `/analytics/rain.parquet?${named}`);
      expect(parquet.rawPayload.equals(parquetByName.rawPayload), dimensions).toBe(true);
    }
    await expectBadRequests(built, [
      ['dimension=ou:D1&ou=D2', 'dimension ou is given twice, as ou= and as dimension=ou:; give its items once'],
      ['dimension=dx:sum&stat=mean', 'dimension dx is given twice, as stat= and as dimension=dx:; give its items once'],
      [
        'dimension=pe:2024&dimension=pe:2023',
        'dimension pe is given twice, as dimension=pe: and as dimension=pe:; give its items once',
      ],
      ['dimension=co:abc', 'dimension co is not a dimension of the table; expected dx, ou, pe (dimension=ou:ID1;ID2)'],
      ['dimension=ou', 'dimension ou has no items; write dimension=ou:ITEM1;ITEM2'],
      ['dimension=ou:D9', 'ou D9 is not an org unit of the table'],
    ]);
  });

  it("answers DHIS2's filter=: no column for a filter, its items aggregated, and listed in metaData", async () => {
    const built = await served();
    const res = await get(built, '/analytics/rain?filter=ou:D1;D2&dimension=pe:202401;2024&dimension=dx:sum;mean');
    expect(res.statusCode).toBe(200);
    const { answer, rows, columns } = parseFiltered(res.body);
    expect(columns).toEqual(['dx', 'pe', 'value']);
    // D1 and D2 are the third and fourth units; the table has no count, so the mean is the plain mean of means.
    const over = (p: number, stat: 'mean' | 'sum') =>
      stat === 'sum' ? valueOf(2, p, stat) + valueOf(3, p, stat) : (valueOf(2, p, stat) + valueOf(3, p, stat)) / 2;
    expect(rows).toEqual([
      { dx: 'mean', pe: '202401', value: over(12, 'mean') },
      { dx: 'sum', pe: '202401', value: over(12, 'sum') },
      { dx: 'mean', pe: '2024', value: over(101, 'mean') },
      { dx: 'sum', pe: '2024', value: over(101, 'sum') },
    ]);
    expect(answer.metaData.dimensions).toEqual({
      dx: ['sum', 'mean'],
      ou: ['D1', 'D2'],
      pe: ['202401', '2024'],
      co: [],
    });
    expect(answer.metaData.items).toMatchObject({ D1: { name: 'Hills' }, D2: { name: 'Coast' } });

    // A period filter, and a statistic as a filter of one item: the columns left are the dimensions left.
    const byUnit = parseFiltered(
      (await get(built, '/analytics/rain?ou=R1;R2&filter=pe:202401;202402&filter=dx:sum')).body,
    );
    expect(byUnit.columns).toEqual(['ou', 'value']);
    expect(byUnit.rows).toEqual([
      { ou: 'R1', value: valueOf(0, 12, 'sum') + valueOf(0, 13, 'sum') },
      { ou: 'R2', value: valueOf(1, 12, 'sum') + valueOf(1, 13, 'sum') },
    ]);
    // Every dimension a filter: one value, the sum over the org units of a level and the relative periods.
    const one = parseFiltered(
      (await get(built, '/analytics/rain?filter=ou:LEVEL-3&filter=pe:LAST_3_MONTHS&filter=dx:sum')).body,
    );
    expect(one.columns).toEqual(['value']);
    const sum = [2, 3, 4].reduce((a, u) => a + [15, 16, 17].reduce((b, p) => b + valueOf(u, p, 'sum'), 0), 0);
    expect(one.rows).toEqual([{ value: sum }]);
    expect(one.answer.metaData.dimensions.ou).toEqual(['D1', 'D2', 'D3']);
    expect(one.answer.metaData.dimensions.pe).toEqual(['202404', '202405', '202406']);

    const csv = await get(built, '/analytics/rain.csv?filter=ou:D1;D2&pe=202401&stat=sum');
    expect(csv.body).toBe(`Data,Period,Value\r\nsum,202401,${over(12, 'sum')}\r\n`);
  });

  it('aggregates each statistic over a period filter as over all the days of its periods, the mean weighted by counts', async () => {
    const built = await build(undefined, { now: () => TODAY });
    await seedCollection(built);
    await createTable(built, 'stats', ['mean', 'sum', 'min', 'max', 'count']);
    // Each month's days, one month with none: a quarter's statistics are those of every day of its months.
    const days: Record<string, Record<string, (number | null)[]>> = {
      D1: { '202401': [1, 2, null, 9], '202402': [4, null], '202403': [null, null] },
      D2: { '202401': [-3, 5], '202402': [7, 7, 7, 0.5, 2], '202403': [6] },
    };
    const rows = Object.entries(days).flatMap(([ou, months]) =>
      Object.entries(months).flatMap(([pe, values]) =>
        Object.entries(statisticsOfDays(values)).map(([stat, value]) => ({
          ou,
          periodType: 'monthly' as const,
          pe,
          stat: stat as AnalyticsStatistic,
          value,
          sourceVersion: 'dv1',
        })),
      ),
    );
    await publish(built, 'v1', rows, 'stats');
    const res = await get(built, '/analytics/stats?ou=D1;D2&filter=pe:202401;202402;202403');
    expect(res.statusCode).toBe(200);
    const { rows: answered, columns } = parseFiltered(res.body);
    expect(columns).toEqual(['dx', 'ou', 'value']);
    for (const [ou, months] of Object.entries(days)) {
      const whole = statisticsOfDays(Object.values(months).flat());
      const of = Object.fromEntries(answered.filter((r) => r.ou === ou).map((r) => [r.dx, r.value]));
      expect(Object.keys(of).sort(), ou).toEqual(['count', 'max', 'mean', 'min', 'sum']);
      for (const [stat, value] of Object.entries(whole)) expect(of[stat], `${ou} ${stat}`).toBeCloseTo(value!, 12);
    }
    // Over org units, the means are weighted by their counts too: each org unit-day counts once.
    const units = parseFiltered((await get(built, '/analytics/stats?filter=ou:D1;D2&pe=202401&stat=mean;count')).body);
    expect(units.rows).toEqual([
      { dx: 'count', pe: '202401', value: 5 },
      { dx: 'mean', pe: '202401', value: statisticsOfDays([1, 2, 9, -3, 5]).mean },
    ]);
    // No item with a value: no row, as for a period without one.
    const none = parseFiltered((await get(built, '/analytics/stats?filter=ou:D1&pe=202403&stat=mean;count')).body);
    expect(none.rows).toEqual([{ dx: 'count', pe: '202403', value: 0 }]);
  });

  it('answers 400 naming a dimension both a filter and a dimension, and a filter it cannot aggregate', async () => {
    const built = await served();
    await expectBadRequests(built, [
      ['dimension=ou:D1&filter=ou:D2', 'dimension ou is given twice, as dimension=ou: and as filter=ou:'],
      ['pe=202401&filter=pe:202402', 'dimension pe is given twice, as pe= and as filter=pe:'],
      ['filter=dx:sum&stat=mean', 'dimension dx is given twice, as stat= and as filter=dx:'],
      ['filter=ou:D1&filter=ou:D2', 'dimension ou is given twice, as filter=ou: and as filter=ou:'],
      ['filter=co:x', 'filter co is not a dimension of the table; expected dx, ou, pe (filter=ou:ID1;ID2)'],
      ['filter=pe', 'filter pe has no items; write filter=pe:ITEM1;ITEM2'],
      ['filter=ou:D9', 'ou D9 is not an org unit of the table'],
      ['filter=dx:mean;sum', 'filter dx takes one statistic, not mean, sum'],
      ['filter=pe:2024;202401', 'filter pe mixes period types (yearly, monthly)'],
      ['filter=ou:D1&format=parquet', 'filter= is answered as JSON or CSV'],
    ]);
  });

  it('answers CSV by suffix, format and Accept', async () => {
    const built = await served();
    const expected = `Data,Organisation unit,Period,Value\r\nmean,D2,202402,${valueOf(3, 13, 'mean')}\r\n`;
    for (const [url, accept] of [
      ['/analytics/rain.csv?ou=D2&pe=202402&stat=mean', undefined],
      ['/analytics/rain?ou=D2&pe=202402&stat=mean&format=csv', undefined],
      ['/analytics/rain?ou=D2&pe=202402&stat=mean', 'text/csv'],
    ] as const) {
      const res = await get(built, url, accept ? { accept } : {});
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      expect(res.body).toBe(expected);
    }
  });

  it('leaves out the rows without a value from JSON, and keeps them in Parquet', async () => {
    const built = await served();
    await publish(built, 'v2', tableRows('dv2', '202403'));
    const { rows } = parseAnswer((await get(built, '/analytics/rain?ou=D1&pe=202403;202404&stat=mean')).body);
    expect(rows.map((r) => r.pe)).toEqual(['202404']);
    const parquet = await get(built, '/analytics/rain.parquet?ou=D1&pe=202403&stat=mean');
    const read = await readWithDuckDb(parquet.rawPayload, built.storageRoot);
    expect(read).toEqual([
      { ou: 'D1', periodType: 'monthly', pe: '202403', stat: 'mean', value: null, sourceVersion: 'dv2' },
    ]);
  });

  it('answers the download of a version published with its digest from it: size, ETag, ranges, and the bytes hashed', async () => {
    const built = await served();
    const rows = tableRows('dv2');
    // A digest file that says otherwise: the size answered is the one the build wrote, not one of encoded bytes.
    await publish(built, 'v2', rows, 'rain', { sha256: 'ab'.repeat(32), size: 5 });
    const head = await built.app.inject({ method: 'HEAD', url: '/analytics/rain.parquet' });
    expect(head.headers['content-length']).toBe('5');
    const range = await get(built, '/analytics/rain.parquet', { range: 'bytes=0-3' });
    expect([range.statusCode, range.body]).toEqual([206, 'PAR1']);

    await publish(built, 'v3', rows, 'rain', 'computed');
    const whole = await get(built, '/analytics/rain.parquet');
    const written = JSON.parse(
      await readFile(join(built.storageRoot, analyticsTablePath('rain', 'v3'), 'download.json'), 'utf8'),
    ) as { sha256: string; size: number };
    expect(whole.headers['content-length']).toBe(String(written.size));
    expect(sha256Hex(whole.rawPayload)).toBe(written.sha256);
    expect(await parquetReadObjects({ file: new Uint8Array(whole.rawPayload).buffer })).toEqual(
      [...rows].sort(compareRows),
    );
  });

  it('computes the digest of a version published without one (an incremental build) once, and keeps it for the next load', async () => {
    const built = await served();
    await publish(built, 'v2', tableRows('dv2'));
    const kept = join(built.storageRoot, analyticsTablePath('rain', 'v2'), 'download.json');
    await expect(readFile(kept)).rejects.toMatchObject({ code: 'ENOENT' });

    const whole = await get(built, '/analytics/rain.parquet');
    const written = JSON.parse(await readFile(kept, 'utf8')) as { sha256: string; size: number };
    expect(whole.headers['content-length']).toBe(String(whole.rawPayload.length));
    expect(written).toEqual({ sha256: sha256Hex(whole.rawPayload), size: whole.rawPayload.length });
    expect(whole.headers.etag).toBe(`"v2-${written.size.toString(36)}"`);

    // The same files served again as another version: loaded anew, the kept digest is read, not computed again.
    await writeFile(kept, JSON.stringify({ sha256: 'ab'.repeat(32), size: 5 }));
    const table = (await built.cluster.get<AnalyticsTable>(analyticsTableKind, 'rain', 'default'))!.status!.table!;
    await built.cluster.patchStatus(
      analyticsTableKind,
      'rain',
      { type: 'merge', body: { status: { table: { ...table, id: 'v3' } } } },
      'default',
    );
    const head = await built.app.inject({ method: 'HEAD', url: '/analytics/rain.parquet' });
    expect([head.headers['content-length'], head.headers.etag]).toEqual(['5', '"v3-5"']);
  });

  it('serves the whole table as one Parquet file when nothing is filtered, and a filtered table DuckDB reads', async () => {
    const built = await served();
    const whole = await get(built, '/analytics/rain', { accept: 'application/vnd.apache.parquet' });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(await readWithDuckDb(whole.rawPayload, built.storageRoot)).toHaveLength(tableRows('dv1').length);
    // One file of every year's rows in the table's order, though the version is stored as files per month and year.
    const file = new Uint8Array(whole.rawPayload).buffer;
    expect(await parquetReadObjects({ file })).toEqual([...tableRows('dv1')].sort(compareRows));
    const etag = String(whole.headers.etag);
    expect((await get(built, '/analytics/rain.parquet', { 'if-none-match': etag })).statusCode).toBe(304);
    const head = await get(built, '/analytics/rain.parquet', { range: 'bytes=0-3' });
    expect([head.statusCode, head.body]).toEqual([206, 'PAR1']);
    const filtered = await get(built, '/analytics/rain?ou=R1&pe=2023&format=parquet');
    expect(await readWithDuckDb(filtered.rawPayload, built.storageRoot)).toEqual([
      {
        ou: 'R1',
        periodType: 'yearly',
        pe: '2023',
        stat: 'mean',
        value: valueOf(0, 100, 'mean'),
        sourceVersion: 'dv1',
      },
      { ou: 'R1', periodType: 'yearly', pe: '2023', stat: 'sum', value: valueOf(0, 100, 'sum'), sourceVersion: 'dv1' },
    ]);
  });

  it('answers from the newly served version once a build publishes it', async () => {
    const built = await served();
    const value = async () => parseAnswer((await get(built, '/analytics/rain?ou=D1&pe=202401&stat=sum')).body).rows;
    expect((await value())[0]!.value).toBe(valueOf(2, 12, 'sum'));
    await publish(
      built,
      'v2',
      tableRows('dv2').map((row) => ({ ...row, value: row.value === null ? null : row.value * 2 })),
    );
    expect((await value())[0]!.value).toBe(2 * valueOf(2, 12, 'sum'));
  });

  it('answers 404 for an unknown table and 409 for a table not built yet', async () => {
    const built = await served();
    const unknown = await get(built, '/analytics/nothing?ou=D1');
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { detail: 'Analytics table nothing not found' }]);
    await createTable(built, 'fresh');
    const fresh = await get(built, '/analytics/fresh?ou=D1');
    expect(fresh.statusCode).toBe(409);
    expect(fresh.json().detail).toMatch(/fresh is not built yet/);
  });

  it('refuses a JSON or CSV answer over the row limit with the Parquet URL of the same query', async () => {
    const built = await served();
    await createTable(built, 'big');
    const units = Array.from({ length: 1000 }, (_, i) => ({ ...UNITS[0]!, code: `U${String(i).padStart(4, '0')}` }));
    const rows = units.flatMap((unit) =>
      tableRows('dv1')
        .filter((row) => row.ou === 'R1')
        .map((row) => ({ ...row, ou: unit.code })),
    );
    expect(rows.length).toBeGreaterThan(ANALYTICS_ROW_LIMIT);
    await publish(built, 'v1', rows, 'big');
    for (const url of ['/analytics/big?stat=mean;sum', '/analytics/big.csv?stat=mean;sum']) {
      const res = await get(built, url);
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toBe(
        `The query selects ${rows.length} rows, more than the ${ANALYTICS_ROW_LIMIT} a JSON or CSV answer holds; download them as Parquet: http://localhost:80/analytics/big.parquet?stat=mean%3Bsum`,
      );
    }
    expect((await get(built, '/analytics/big?stat=mean')).statusCode).toBe(200);
  });

  it('answers 400 naming an unknown org unit, period, relative period, level or statistic', async () => {
    const built = await served();
    for (const [query, detail] of [
      ['ou=D9', /ou D9 is not an org unit of the table/],
      ['ou=XX;LEVEL-3', /ou XX is not an org unit of the table nor a parent/],
      ['ou=LEVEL-0', /ou LEVEL-0 is not a level/],
      ['ou=D1;;D2', /ou has an empty item/],
      ['pe=199901', /pe 199901 is not a period of the table/],
      ['pe=2024W05', /pe 2024W05 is neither a DHIS2 period id/],
      ['pe=LAST_13_MONTHS', /pe LAST_13_MONTHS is neither/],
      ['stat=max', /stat max is not a statistic of the table, which has mean, sum/],
      ['stat=median', /stat median is not a statistic; expected mean, sum, min, max, count/],
    ] as const) {
      const res = await get(built, `/analytics/rain?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().detail, query).toMatch(detail);
    }
  });
});
