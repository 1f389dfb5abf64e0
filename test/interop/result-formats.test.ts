/**
 * The batch result formats read by independent readers: graphs run by the engine over an in-memory collection and
 * saved through the batch jobs' directory sink, then the Zarr store opened with xarray, the GTiff checked with
 * GDAL's Cloud Optimized GeoTIFF validator and read with GDAL, and the vector results (dhis2-json, GeoJSON
 * validated against the published GeoJSON schemas, CSV and GeoParquet read by DuckDB) compared with means that
 * numpy and shapely compute from the same values.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Ajv } from 'ajv';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataCube } from '../../core/processing/cube/cube.ts';
import { memoryCube } from '../../core/processing/cube/memory.ts';
import { runProcessGraph } from '../../core/processing/engine.ts';
import { directorySink } from '../../core/processing/jobs/sink.ts';
import type { EngineServices } from '../../core/processing/services.ts';
import type { MaybeEmptyFeature } from '../../core/processing/values/geojson.ts';
import { callback, spatial, temporal } from '../support/cubes.ts';
import { python } from '../support/python.ts';

let dir: string;
let raw: string;

// 10 days × 2 bands × 300 rows (north-up, 0.01° from 12°N) × 280 columns (from 4°W).
const [NT, NB, NY, NX] = [10, 2, 300, 280];
const RES = 0.01;
const DAYS = Array.from({ length: NT }, (_, t) => new Date(Date.UTC(2024, 2, 1 + t)).toISOString());
const LAT = Array.from({ length: NY }, (_, i) => 12 - RES / 2 - i * RES);
const LON = Array.from({ length: NX }, (_, i) => -4 + RES / 2 + i * RES);
const GRID = { nt: NT, nb: NB, ny: NY, nx: NX, res: RES, north: 12, west: -4 };

/** Nodata: a 30 × 30 corner on the third day, and scattered cells on odd days. */
function valueAt(t: number, b: number, row: number, col: number): number {
  if (t === 2 && row < 30 && col < 30) return Number.NaN;
  if (t % 2 === 1 && (row * NX + col) % 17 === 0) return Number.NaN;
  return ((t * 7 + b * 13 + row * 3 + col * 5) % 97) / 7 + t * 0.5 + b * 20;
}

const values = new Float32Array(NT * NB * NY * NX);
values.forEach((_, i) => {
  values[i] = valueAt(Math.floor(i / (NB * NY * NX)), Math.floor(i / (NY * NX)) % NB, Math.floor(i / NX) % NY, i % NX);
});

/** The collection, in chunks that the grid does not divide. */
const collection = (): DataCube =>
  memoryCube({
    dimensions: [
      temporal(DAYS),
      { name: 'bands', type: 'bands', labels: ['precip', 'tmax'] },
      spatial('y', LAT, 'EPSG:4326'),
      spatial('x', LON, 'EPSG:4326'),
    ],
    data: values,
    chunkShape: [3, 1, 128, 100],
  });

const square = (west: number, south: number, east: number, north: number) => [
  [
    [west, south],
    [east, south],
    [east, north],
    [west, north],
    [west, south],
  ],
];

/** Org units as DHIS2 ids; `ImspTQPwCqd` lies in the corner that is nodata on the third day. */
const DISTRICTS: MaybeEmptyFeature[] = [
  { id: 'ImspTQPwCqd', geometry: { type: 'Polygon', coordinates: square(-3.95, 11.76, -3.76, 11.95) } },
  { id: 'O6uvpzGd5pu', geometry: { type: 'Polygon', coordinates: square(-3.5, 10, -2.8, 10.9) } },
  {
    id: 'fdc6uOvgoji',
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [-2.6, 9.2],
          [-1.35, 9.4],
          [-2.1, 10.6],
          [-2.6, 9.2],
        ],
      ],
    },
  },
].map((f) => ({ type: 'Feature', properties: {}, ...f }) as MaybeEmptyFeature);

/** Runs `graph` (a `load` node loading the collection is added) into a fresh results directory. */
async function runSaved(name: string, graph: Record<string, unknown>, maxCells = 1e9) {
  const out = join(dir, name);
  await mkdir(out);
  const results = directorySink(out, maxCells);
  const services: EngineServices = {
    collections: { open: async (id) => (id === 'climate' ? { cube: collection() } : undefined) },
    features: { get: async (id) => (id === 'districts' ? { features: DISTRICTS } : undefined) },
    results,
  };
  await runProcessGraph(graph, { services });
  return { out, saved: results.saved.map((s) => s.file) };
}

const load = (args: Record<string, unknown> = {}) => ({
  process_id: 'load_collection',
  arguments: { id: 'climate', spatial_extent: null, temporal_extent: null, ...args },
});
const save = (from: string, format: string, options?: Record<string, unknown>) => ({
  process_id: 'save_result',
  arguments: { data: { from_node: from }, format, ...(options ? { options } : {}) },
  result: true,
});
const reduce = (from: string, dimension: string, reducer: string) => ({
  process_id: 'reduce_dimension',
  arguments: { data: { from_node: from }, dimension, reducer: callback(reducer, { data: { from_parameter: 'data' } }) },
});

/** Python that loads the collection's values as numpy: `full` (t, band, lat, lon), `lat`, `lon`. */
const COLLECTION_PY = [
  'import json, math, sys, numpy',
  'g = json.loads(sys.argv[2])',
  'full = numpy.fromfile(sys.argv[1], dtype="<f4").reshape(g["nt"], g["nb"], g["ny"], g["nx"])',
  'lat = g["north"] - g["res"] / 2 - numpy.arange(g["ny"]) * g["res"]',
  'lon = g["west"] + g["res"] / 2 + numpy.arange(g["nx"]) * g["res"]',
];

describe('batch result formats read by independent readers', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-result-formats-'));
    raw = join(dir, 'collection.f32');
    await writeFile(raw, new Uint8Array(values.buffer));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes Zarr that xarray.open_zarr reads with the cube’s values, coordinates and CF metadata', async () => {
    const bbox = { west: -3.5, south: 9.5, east: -1.75, north: 11.25 };
    // Fewer cells may be held in memory than the loaded cube has: the store is written chunk by chunk.
    const { out, saved } = await runSaved(
      'zarr',
      {
        load: load({ spatial_extent: bbox }),
        max: reduce('load', 't', 'max'),
        mean: reduce('load', 'bands', 'mean'),
        days: save('mean', 'Zarr'),
        bands: { ...save('max', 'Zarr'), result: false },
      },
      300_000,
    );
    expect(saved.map((f) => [f.name, f.mediaType, f.directory])).toEqual([
      ['result.zarr', 'application/vnd+zarr', true],
      ['result-2.zarr', 'application/vnd+zarr', true],
    ]);
    const read = await python<{
      mean: { dims: string[]; vars: string[]; time: string[]; rows: number[]; cols: number[] };
      max: { dims: string[]; vars: string[]; hasTime: boolean };
      equal: Record<string, boolean>;
      diff: number;
      fill: boolean;
      compressor: string;
      gridMapping: string;
      crs: string;
      bbox: number[];
    }>(
      [
        ...COLLECTION_PY,
        'import xarray, pandas',
        'a = xarray.open_zarr(sys.argv[3], consolidated=True)',
        'b = xarray.open_zarr(sys.argv[4], consolidated=True)',
        // The result's grid placed in the collection's by its coordinates.
        'rows = [int(numpy.argmin(abs(lat - v))) for v in a.lat.values]',
        'cols = [int(numpy.argmin(abs(lon - v))) for v in a.lon.values]',
        'assert numpy.allclose(lat[rows], a.lat.values) and numpy.allclose(lon[cols], a.lon.values)',
        'sub = full[:, :, rows][:, :, :, cols]',
        'with numpy.errstate(all="ignore"):',
        '  mean = numpy.nanmean(sub.astype("f8"), axis=1)',
        '  mx = numpy.nanmax(sub, axis=0)',
        'print(json.dumps({',
        '  "mean": {"dims": list(a["value"].dims), "vars": sorted(a.data_vars),',
        '    "time": [str(t)[:10] for t in a.time.values], "rows": [rows[0], len(rows)], "cols": [cols[0], len(cols)]},',
        '  "max": {"dims": list(b["precip"].dims), "vars": sorted(b.data_vars), "hasTime": "time" in b.coords},',
        '  "equal": {"precip": bool(numpy.array_equal(b["precip"].values, mx[0], equal_nan=True)),',
        '    "tmax": bool(numpy.array_equal(b["tmax"].values, mx[1], equal_nan=True)),',
        '    "nan": bool(numpy.array_equal(numpy.isnan(a["value"].values), numpy.isnan(mean)))},',
        '  "diff": float(numpy.nanmax(abs(a["value"].values - mean))),',
        '  "fill": bool(math.isnan(a["value"].encoding["_FillValue"])),',
        '  "compressor": a["value"].encoding["compressor"].codec_id,',
        '  "gridMapping": a["value"].attrs.get("grid_mapping") or a["value"].encoding.get("grid_mapping"),',
        '  "crs": a["spatial_ref"].attrs["crs_wkt"][:14],',
        '  "bbox": [float(a.lon.min()), float(a.lat.min()), float(a.lon.max()), float(a.lat.max())]}))',
      ].join('\n'),
      [raw, JSON.stringify(GRID), join(out, 'result.zarr'), join(out, 'result-2.zarr')],
    );
    expect(read.mean.dims).toEqual(['time', 'lat', 'lon']);
    expect(read.mean.vars).toEqual(['value']);
    expect(read.mean.time).toEqual(DAYS.map((d) => d.slice(0, 10)));
    expect(read.max.dims).toEqual(['lat', 'lon']);
    expect(read.max.vars).toEqual(['precip', 'tmax']);
    expect(read.max.hasTime).toBe(false);
    // 175 rows and columns: the pixel centres in the bounding box.
    expect(read.mean.rows).toEqual([75, 175]);
    expect(read.mean.cols).toEqual([50, 175]);
    expect(read.bbox[0]).toBeGreaterThan(bbox.west);
    expect(read.bbox[3]).toBeLessThan(bbox.north);
    expect(read.equal).toEqual({ precip: true, tmax: true, nan: true });
    // The band mean is computed in float64 by numpy and written as float32.
    expect(read.diff).toBeLessThan(1e-5);
    expect(read.fill).toBe(true);
    expect(read.compressor).toBe('zlib');
    expect(read.gridMapping).toBe('spatial_ref');
    expect(read.crs).toBe('GEOGCS["WGS 84');
  }, 60_000);

  it('writes GTiff as a Cloud Optimized GeoTIFF that GDAL validates and reads with the cube’s pixels', async () => {
    const { out } = await runSaved('gtiff', {
      load: load(),
      mean: reduce('load', 't', 'mean'),
      save: save('mean', 'GTiff'),
    });
    const read = await python<{
      errors: string[];
      warnings: string[];
      size: number[];
      bands: number;
      blocks: number[][];
      overviews: number[][];
      geo: number[];
      epsg: string;
      nodata: string[];
      compression: string | null;
      equal: boolean[];
      diff: number;
    }>(
      [
        ...COLLECTION_PY,
        'from osgeo import gdal, osr',
        'from osgeo_utils.samples import validate_cloud_optimized_geotiff as cog',
        'gdal.UseExceptions()',
        'warnings, errors, _ = cog.validate(sys.argv[3], full_check=True)',
        'd = gdal.Open(sys.argv[3])',
        'with numpy.errstate(all="ignore"):',
        '  mean = numpy.nanmean(full.astype("f8"), axis=0)',
        'px = [d.GetRasterBand(i + 1).ReadAsArray() for i in range(d.RasterCount)]',
        'srs = osr.SpatialReference(wkt=d.GetProjection())',
        'b = d.GetRasterBand(1)',
        'print(json.dumps({"errors": errors, "warnings": warnings, "size": [d.RasterXSize, d.RasterYSize],',
        '  "bands": d.RasterCount, "blocks": [d.GetRasterBand(i + 1).GetBlockSize() for i in range(d.RasterCount)],',
        '  "overviews": [[b.GetOverview(i).XSize, b.GetOverview(i).YSize] for i in range(b.GetOverviewCount())],',
        '  "geo": list(d.GetGeoTransform()), "epsg": srs.GetAuthorityCode(None),',
        '  "nodata": [str(d.GetRasterBand(i + 1).GetNoDataValue()) for i in range(d.RasterCount)],',
        '  "compression": d.GetMetadataItem("COMPRESSION", "IMAGE_STRUCTURE"),',
        '  "equal": [bool(numpy.array_equal(numpy.isnan(px[i]), numpy.isnan(mean[i]))) for i in range(2)],',
        '  "diff": float(max(numpy.nanmax(abs(px[i] - mean[i])) for i in range(2)))}))',
      ].join('\n'),
      [raw, JSON.stringify(GRID), join(out, 'result.tif')],
    );
    expect(read.errors).toEqual([]);
    expect(read.warnings).toEqual([]);
    expect(read.size).toEqual([NX, NY]);
    expect(read.bands).toBe(2);
    expect(read.blocks).toEqual([
      [256, 256],
      [256, 256],
    ]);
    expect(read.overviews).toEqual([[140, 150]]);
    expect(read.geo[0]).toBeCloseTo(-4, 9);
    expect(read.geo[3]).toBeCloseTo(12, 9);
    expect([read.geo[1], read.geo[5]].map((v) => Number(v!.toFixed(9)))).toEqual([RES, -RES]);
    expect(read.epsg).toBe('4326');
    expect(read.nodata).toEqual(['nan', 'nan']);
    expect(read.compression).toBe('DEFLATE');
    expect(read.equal).toEqual([true, true]);
    expect(read.diff).toBeLessThan(1e-5);
  }, 60_000);

  describe('vector results: dhis2-json, GeoJSON, CSV, GeoParquet', () => {
    const expectedMeans = (weekly: boolean) =>
      python<{ orgUnit: string; period: string; band: number; value: number }[]>(
        [
          ...COLLECTION_PY,
          'import datetime',
          'from shapely.geometry import shape',
          'from shapely import vectorized',
          'features = json.loads(sys.argv[3])',
          'weekly = sys.argv[4] == "weekly"',
          'days = [datetime.date(2024, 3, 1) + datetime.timedelta(days=t) for t in range(g["nt"])]',
          'lons, lats = numpy.meshgrid(lon, lat)',
          'out = []',
          'for f in features:',
          '  inside = vectorized.contains(shape(f["geometry"]), lons, lats)',
          '  if weekly:',
          '    weeks = sorted({d.isocalendar()[1] for d in days})',
          '    groups = [(f"2024W{w}", [t for t, d in enumerate(days) if d.isocalendar()[1] == w]) for w in weeks]',
          '  else:',
          '    groups = [(d.strftime("%Y%m%d"), [t]) for t, d in enumerate(days)]',
          '  for period, ts in groups:',
          '    for b in ([0] if weekly else range(g["nb"])):',
          '      with numpy.errstate(all="ignore"):',
          '        per_pixel = numpy.nanmean(full[ts, b].astype("f8"), axis=0)',
          '        v = numpy.nanmean(per_pixel[inside])',
          '      if not math.isnan(v):',
          '        out.append({"orgUnit": f["id"], "period": period, "band": b, "value": float(v)})',
          'print(json.dumps(out))',
        ].join('\n'),
        [raw, JSON.stringify(GRID), JSON.stringify(DISTRICTS), weekly ? 'weekly' : 'daily'],
      );

    /** Nodes `districts` and `means`: the district means of node `from` per time step (and band). */
    const districtMeans = (from: string) => ({
      districts: { process_id: 'load_features', arguments: { id: 'districts' } },
      means: {
        process_id: 'aggregate_spatial',
        arguments: {
          data: { from_node: from },
          geometries: { from_node: 'districts' },
          reducer: callback('mean', { data: { from_parameter: 'data' } }),
        },
      },
    });

    const payloadOf = async (out: string) =>
      JSON.parse(await readFile(join(out, 'result.dhis2.json'), 'utf8')) as {
        dataValues: Record<string, string>[];
      };

    it('writes daily district means per data element as numpy and shapely compute them, nodata left out', async () => {
      const { out, saved } = await runSaved('dhis2-daily', {
        load: load(),
        ...districtMeans('load'),
        save: save('means', 'dhis2-json', { data_elements: { precip: 'DE_PRECIP', tmax: 'DE_TMAX' } }),
      });
      expect(saved.map((f) => [f.name, f.mediaType])).toEqual([['result.dhis2.json', 'application/json']]);
      const { dataValues } = await payloadOf(out);
      const expected = await expectedMeans(false);
      // The corner district has no value on the third day: all its pixels are nodata then.
      expect(expected.some((e) => e.orgUnit === 'ImspTQPwCqd' && e.period === '20240303')).toBe(false);
      expect(expected).toHaveLength(3 * 10 * 2 - 2);
      expect(dataValues.map((v) => [v.orgUnit, v.period, v.dataElement])).toEqual(
        expected.map((e) => [e.orgUnit, e.period, ['DE_PRECIP', 'DE_TMAX'][e.band]]),
      );
      dataValues.forEach((v, i) => {
        expect(Object.keys(v)).toEqual(['dataElement', 'period', 'orgUnit', 'value']);
        expect(v.value).toMatch(/^-?\d+(\.\d{1,6})?$/);
        expect(Number(v.value)).toBeCloseTo(expected[i]!.value, 5);
      });
    }, 60_000);

    it('writes weekly means of one band as ISO week periods with the one data element', async () => {
      const { out } = await runSaved('dhis2-weekly', {
        load: load({ bands: ['precip'] }),
        weeks: {
          process_id: 'aggregate_temporal_period',
          arguments: {
            data: { from_node: 'load' },
            period: 'week',
            reducer: callback('mean', { data: { from_parameter: 'data' } }),
          },
        },
        ...districtMeans('weeks'),
        save: save('means', 'dhis2-json', { data_element: 'DE_PRECIP', period_type: 'weekly' }),
      });
      const { dataValues } = await payloadOf(out);
      const expected = await expectedMeans(true);
      expect(dataValues.map((v) => [v.orgUnit, v.period, v.dataElement])).toEqual(
        expected.map((e) => [e.orgUnit, e.period, 'DE_PRECIP']),
      );
      expect(new Set(dataValues.map((v) => v.period))).toEqual(new Set(['2024W9', '2024W10']));
      dataValues.forEach((v, i) => expect(Number(v.value)).toBeCloseTo(expected[i]!.value, 5));
    }, 60_000);

    it('writes GeoJSON valid against the GeoJSON schema, and CSV and GeoParquet that DuckDB reads, with the same means', async () => {
      const { out, saved } = await runSaved('vector-formats', {
        load: load(),
        ...districtMeans('load'),
        geojson: { ...save('means', 'GeoJSON'), result: false },
        csv: { ...save('means', 'CSV'), result: false },
        save: save('means', 'Parquet'),
      });
      expect(saved.map((f) => f.name).sort()).toEqual(['result.csv', 'result.geojson', 'result.parquet']);
      const expected = await expectedMeans(false);
      const BANDS = ['precip', 'tmax'];
      const day = (period: string) => `${period.slice(0, 4)}-${period.slice(4, 6)}-${period.slice(6)}`;
      const mean = (orgUnit: string, date: string, band: string) =>
        expected.find((e) => e.orgUnit === orgUnit && day(e.period) === date.slice(0, 10) && BANDS[e.band] === band)
          ?.value ?? null;

      // GeoJSON: the published schemas (npm geojson-schema, from github.com/geojson/schema), compiled by Ajv.
      const schemas = createRequire(import.meta.url).resolve('geojson-schema/FeatureCollection.json');
      const schema = JSON.parse(await readFile(schemas, 'utf8')) as object;
      const geojson = JSON.parse(await readFile(join(out, 'result.geojson'), 'utf8')) as {
        features: { id: string; properties: Record<string, number | null> }[];
      };
      const validate = new Ajv({ strict: false }).compile(schema);
      expect(validate(geojson), JSON.stringify(validate.errors)).toBe(true);
      expect(geojson.features.map((f) => f.id)).toEqual(DISTRICTS.map((d) => d.id));
      for (const feature of geojson.features)
        for (const date of DAYS)
          for (const band of BANDS) {
            const want = mean(feature.id, date, band);
            const got = feature.properties[`${date}|${band}`];
            if (want === null) expect(got).toBeNull();
            else expect(got).toBeCloseTo(want, 4);
          }

      const db = await (await DuckDBInstance.create(':memory:')).connect();
      const rows = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjectsJson();
      // CSV: one row per district, day and band; an empty field is nodata.
      const csv = await rows(`SELECT * FROM read_csv('${join(out, 'result.csv')}', header = true, all_varchar = true)`);
      expect(csv).toHaveLength(DISTRICTS.length * DAYS.length * BANDS.length);
      for (const row of csv) {
        const [geometry, t, band, value] = Object.values(row) as [string, string, string, string | null];
        const want = mean(geometry, t, band);
        if (want === null) expect(value ?? '').toBe('');
        else expect(Number(value)).toBeCloseTo(want, 4);
      }

      // GeoParquet: the rows, the `geo` metadata of GeoParquet 1.1 and WKB polygons, all as DuckDB reads them.
      const parquet = join(out, 'result.parquet');
      const features = await rows(`SELECT * EXCLUDE (geometry) FROM read_parquet('${parquet}') ORDER BY feature_id`);
      expect(features.map((f) => f.feature_id)).toEqual(DISTRICTS.map((d) => d.id).sort());
      for (const feature of features)
        for (const date of DAYS)
          for (const band of BANDS) {
            const want = mean(String(feature.feature_id), date, band);
            const got = feature[`${date}|${band}`] as number | null;
            if (want === null) expect(got).toBeNull();
            else expect(got).toBeCloseTo(want, 4);
          }
      const [geo] = await rows(
        `SELECT decode(value) AS geo FROM parquet_kv_metadata('${parquet}') WHERE decode(key) = 'geo'`,
      );
      expect(JSON.parse(String(geo!.geo))).toMatchObject({
        version: '1.1.0',
        primary_column: 'geometry',
        columns: { geometry: { encoding: 'WKB', geometry_types: expect.arrayContaining(['Polygon']) } },
      });
      // DuckDB reads the geometry column as GEOMETRY in the CRS the metadata names, its polygons as written.
      const shapes = await rows(
        `SELECT feature_id, typeof(geometry) AS type, ST_AsText(geometry) AS wkt FROM read_parquet('${parquet}') ORDER BY feature_id`,
      );
      const wkt = (rings: number[][][]) =>
        `POLYGON (${rings.map((ring) => `(${ring.map(([x, y]) => `${x} ${y}`).join(', ')})`).join(', ')})`;
      for (const shape of shapes) {
        expect(String(shape.type)).toMatch(/^GEOMETRY\(.*"code":4326/);
        const district = DISTRICTS.find((d) => d.id === shape.feature_id)!;
        expect(shape.wkt).toBe(wkt((district.geometry as { coordinates: number[][][] }).coordinates));
      }
      db.closeSync();
    }, 60_000);

    it('refuses a cube with bands and no mapping of them, naming the option', async () => {
      const refusal = await runSaved('dhis2-refused', {
        load: load(),
        ...districtMeans('load'),
        save: save('means', 'dhis2-json', { data_element: 'DE_PRECIP' }),
      }).catch((err: unknown) => err);
      expect(refusal).toMatchObject({ code: 'ProcessParameterInvalid', message: /map them with data_elements/ });
    }, 60_000);
  });
});
