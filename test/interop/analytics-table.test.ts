/**
 * Analytics tables end to end in embedded mode: `make run`'s example table over the sample dataset and districts is
 * built by a worker, its Parquet file is read by DuckDB as it is, every value equals an independent Python
 * reference (xarray reading /zarr, shapely coverage fractions of each cell, pandas periods), and a day appended to
 * the dataset updates the table by computing only the periods that hold it.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import {
  analyticsTableKind,
  type AnalyticsTable,
  type AnalyticsTableVersion,
} from '../../core/resources/analytics-table/schema.ts';
import { eventually } from '../support/eventually.ts';
import { ingestSample, startEmbedded, untilExamplesServed } from '../support/embedded.ts';
import { python } from '../support/python.ts';

const TABLE = 'sample-districts-monthly';

/**
 * The reference: each district's daily value is the mean of the cells it covers weighted by the covered fraction
 * of each cell (shapely), then monthly and yearly mean, sum, min, max and count of days.
 */
const REFERENCE = `
import json, sys
import numpy as np
import pandas as pd
import xarray as xr
from shapely.geometry import box, shape
ds = xr.open_zarr(sys.argv[1], consolidated=True)
values = np.asarray(ds['value'].values, dtype='f8')
lat = ds['lat'].values; lon = ds['lon'].values
dy = lat[1] - lat[0]; dx = lon[1] - lon[0]
features = json.load(open(sys.argv[2]))['features']
days = pd.to_datetime(ds['time'].values)
out = {}
for f in features:
    geom = shape(f['geometry'])
    minx, miny, maxx, maxy = geom.bounds
    cells, weights = [], []
    for r, y in enumerate(lat):
        if y + abs(dy) / 2 < miny or y - abs(dy) / 2 > maxy: continue
        for c, x in enumerate(lon):
            if x + abs(dx) / 2 < minx or x - abs(dx) / 2 > maxx: continue
            cell = box(x - abs(dx) / 2, y - abs(dy) / 2, x + abs(dx) / 2, y + abs(dy) / 2)
            w = geom.intersection(cell).area / cell.area
            if w > 0: cells.append((r, c)); weights.append(w)
    rs = np.array([r for r, _ in cells]); cs = np.array([c for _, c in cells]); w = np.array(weights)
    v = values[:, rs, cs]
    valid = ~np.isnan(v)
    daily = (np.where(valid, v, 0) @ w) / (np.where(valid, 1, 0) @ w)
    series = pd.Series(daily, index=days).dropna()
    for kind, key in (('monthly', series.index.strftime('%Y%m')), ('yearly', series.index.strftime('%Y'))):
        g = series.groupby(key)
        for stat, frame in (('mean', g.mean()), ('sum', g.sum()), ('min', g.min()), ('max', g.max()), ('count', g.count())):
            for pe, value in frame.items():
                out['|'.join([str(f['properties']['code']), kind, pe, stat])] = float(value)
print(json.dumps(out))
`;

let dataDir: string;
let running: RunningEmbedded;

const table = async () => (await running.cluster.get<AnalyticsTable>(analyticsTableKind, TABLE, 'default'))!;

/** The table once it serves a version other than `other`. */
function published(other?: string): Promise<AnalyticsTableVersion> {
  return eventually(
    async () => {
      const served = (await table()).status?.table;
      return served && served.id !== other ? served : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
}

async function parquetRows(version: AnalyticsTableVersion) {
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  const file = join(dataDir, 'store', version.path);
  const reader = await db.runAndReadAll(
    `SELECT ou, periodType, pe, stat, value, sourceVersion, year FROM read_parquet('${file}/*/*.parquet', hive_partitioning = true)`,
  );
  return reader.getRowObjectsJson() as {
    ou: string;
    periodType: string;
    pe: string;
    stat: string;
    value: number | null;
    sourceVersion: string;
    year: number;
  }[];
}

describe('the example analytics table over the sample dataset (embedded)', () => {
  let first: AnalyticsTableVersion;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-analytics-'));
    running = await startEmbedded(dataDir);
    await untilExamplesServed(running);
    first = await published();
  }, 180_000);

  afterAll(async () => {
    await running?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('is Ready with a table DuckDB reads, every value equal to the xarray + shapely reference', async () => {
    const ready = (await table()).status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'True', reason: 'Ready' });
    const features = join(dataDir, 'districts.geojson');
    await writeFile(features, await (await fetch(`${running.url}/features/sample-districts/data.geojson`)).text());
    const reference = await python<Record<string, number>>(
      REFERENCE,
      [`${running.url}/zarr/sample`, features],
      120_000,
    );
    const rows = await parquetRows(first);
    expect(rows).toHaveLength(first.rows);
    expect(rows.length).toBe(Object.keys(reference).length);
    for (const row of rows) {
      const want = reference[[row.ou, row.periodType, row.pe, row.stat].join('|')];
      expect(want, `${row.ou} ${row.pe} ${row.stat}`).toBeDefined();
      expect(row.value).toBeCloseTo(want!, 4);
      expect(row.sourceVersion).toBe(first.sourceVersion);
      // The hive partition of the row's file is the year of its period.
      expect(String(row.year)).toBe(row.pe.slice(0, 4));
    }
    expect(new Set(rows.map((r) => r.pe))).toEqual(
      new Set([...Array(12).keys()].map((m) => `2024${String(m + 1).padStart(2, '0')}`).concat('2024')),
    );
  });

  it('answers GET /analytics/{table} in the shape of DHIS2 analytics, as CSV, and as Parquet DuckDB reads', async () => {
    const rows = await parquetRows(first);
    const stored = (ou: string, pe: string, stat: string) =>
      rows.find((r) => r.ou === ou && r.pe === pe && r.stat === stat)!.value!;
    const res = await fetch(`${running.url}/analytics/${TABLE}?ou=SD01;SD02&pe=202401;2024&stat=sum`);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as {
      headers: { name: string; valueType: string }[];
      rows: string[][];
      metaData: { items: Record<string, { name: string }>; dimensions: Record<string, string[]> };
      width: number;
      height: number;
    };
    expect(answer.headers.map((h) => h.name)).toEqual(['dx', 'ou', 'pe', 'value']);
    expect(answer.height).toBe(4);
    expect(answer.width).toBe(4);
    expect(answer.metaData.dimensions).toMatchObject({ dx: ['sum'], ou: ['SD01', 'SD02'], pe: ['202401', '2024'] });
    expect(answer.metaData.items.SD01?.name).toBe('Sample district 1');
    for (const [dx, ou, pe, value] of answer.rows) expect(Number(value)).toBeCloseTo(stored(ou!, pe!, dx!), 5);

    const csv = await (await fetch(`${running.url}/analytics/${TABLE}.csv?ou=SD03&stat=max`)).text();
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toBe('Data,Organisation unit,Period,Value');
    expect(lines).toHaveLength(1 + 13);
    const [, , pe, value] = lines.find((l) => l.includes(',202406,'))!.split(',');
    expect(Number(value)).toBeCloseTo(stored('SD03', pe!, 'max'), 5);

    const parquet = join(dataDir, 'answer.parquet');
    const download = await fetch(`${running.url}/analytics/${TABLE}?format=parquet&pe=2024`);
    expect(download.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    await writeFile(parquet, Buffer.from(await download.arrayBuffer()));
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    const counted = (
      await db.runAndReadAll(`SELECT count(*)::INT AS n FROM read_parquet('${parquet}')`)
    ).getRowObjectsJson();
    expect(counted).toEqual([{ n: 12 * 5 }]);
  });

  it('refuses an unknown table, org unit, statistic or period with the error it names, never a 5xx', async () => {
    const detail = async (query: string) => {
      const res = await fetch(`${running.url}/analytics/${query}`);
      return [res.status, ((await res.json()) as { detail: string }).detail] as const;
    };
    expect(await detail('no-such-table')).toEqual([404, 'Analytics table no-such-table not found']);
    expect(await detail(`${TABLE}?ou=XX99`)).toEqual([400, expect.stringContaining('XX99')]);
    expect((await detail(`${TABLE}?stat=median`))[0]).toBe(400);
    expect(await detail(`${TABLE}?pe=2024-13`)).toEqual([400, expect.stringContaining('2024-13')]);
    expect((await detail(`${TABLE}?pe=LAST_12_MONTHS`))[0]).toBe(200);
  });

  it('computes only the periods of a day appended to the dataset, and keeps the others as they were', async () => {
    const run = await ingestSample(running, '2025-01-01', '2025-01-01');
    expect(run.status?.phase).toBe('successful');
    const next = await published(first.id);
    // January 2025 and the year 2025: two periods, read from the time chunk that holds the new day only.
    expect(next.computedPeriods).toBe(2);
    const { chunks, shape } = (await (await fetch(`${running.url}/zarr/sample/value/.zarray`)).json()) as {
      chunks: number[];
      shape: number[];
    };
    expect(next.cellsRead).toBeGreaterThan(0);
    expect(next.cellsRead).toBeLessThanOrEqual(chunks[0]! * shape[1]! * shape[2]!);
    expect(first.cellsRead).toBe(366 * shape[1]! * shape[2]!);
    expect(next.periods?.end).toBe('2025-01-01');
    const [before, after] = [await parquetRows(first), await parquetRows(next)];
    const key = (r: (typeof before)[number]) => [r.ou, r.periodType, r.pe, r.stat].join('|');
    const old = new Map(before.map((r) => [key(r), r.value]));
    const added = after.filter((r) => !old.has(key(r)));
    expect(new Set(added.map((r) => r.pe))).toEqual(new Set(['202501', '2025']));
    expect(added.filter((r) => r.stat === 'count').every((r) => r.value === 1)).toBe(true);
    for (const row of after.filter((r) => old.has(key(r)))) expect(row.value).toBe(old.get(key(row)));
    expect(next.rows).toBe(after.length);
    // Only the files of the new day's month and year are written; the others are the previous version's files.
    const file = async (version: AnalyticsTableVersion, path: string) =>
      stat(join(dataDir, 'store', version.path, path));
    for (const path of ['year=2024/12.parquet', 'year=2024/year.parquet'])
      expect((await file(next, path)).ino).toBe((await file(first, path)).ino);
    for (const path of ['year=2025/01.parquet', 'year=2025/year.parquet']) {
      await expect(file(first, path)).rejects.toThrow(/ENOENT/);
      expect((await file(next, path)).nlink).toBe(1);
    }
  });
});
