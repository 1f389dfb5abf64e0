/**
 * `POST /result` end to end, in embedded mode on the sample data: graphs over the served Zarr version and the
 * served districts, checked against Python xarray (and shapely for the districts) reading the same store, the
 * openEO JavaScript client's `computeResult`, and the refusals and limits.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenEO } from '@openeo/js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { readGeoParquetDocument } from '../../core/features/geoparquet-read.ts';
import type { CubeJson } from '../../core/processing/results/json.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../core/resources/feature-collection/schema.ts';
import { startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { python } from '../support/python.ts';
import { callback } from '../support/cubes.ts';
import { colorAt } from '../../core/render/colormap.ts';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';

let dataDir: string;
let running: RunningEmbedded;
let store: string;

const BBOX = { west: -12, south: 8, east: -11, north: 9 };

const result = (processGraph: Record<string, unknown>) =>
  fetch(`${running.url}/result`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ process: { process_graph: processGraph } }),
  });

const load = (temporal: [string, string], spatial: unknown = BBOX) => ({
  process_id: 'load_collection',
  arguments: { id: 'sample', spatial_extent: spatial, temporal_extent: temporal },
});

describe('POST /result over the served stores (embedded)', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-result-'));
    running = await startEmbedded(dataDir);
    const dataset = await eventually(
      async () => {
        const found = await running.cluster.get<Dataset>(datasetKind, 'sample', 'default');
        return currentVersionOf(found) ? found : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    store = join(dataDir, 'store', currentVersionOf(dataset)!.path);
    await eventually(
      async () => (await fetch(`${running.url}/features/sample-districts/data.parquet`)).status === 200 || undefined,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  }, 90_000);

  afterAll(async () => {
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers a temporal mean over a bounding box as xarray computes it from the served store', async () => {
    const response = await result({
      load: load(['2024-01-01', '2024-01-11']),
      mean: {
        process_id: 'reduce_dimension',
        arguments: {
          data: { from_node: 'load' },
          dimension: 't',
          reducer: callback('mean', { data: { from_parameter: 'data' } }),
        },
      },
      save: {
        process_id: 'save_result',
        arguments: { data: { from_node: 'mean' }, format: 'JSON' },
        result: true,
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const cube = (await response.json()) as CubeJson;
    expect(cube.dimensions.map((d) => d.name)).toEqual(['bands', 'y', 'x']);
    const expected = await python<{ lat: number[]; lon: number[]; mean: number[][] }>(
      [
        'import json, sys, xarray',
        'ds = xarray.open_zarr(sys.argv[1], consolidated=True)',
        // Left-closed: the 11th is not in the interval; pixel centres on the box's edges are in it.
        'v = ds["value"].sel(time=slice("2024-01-01", "2024-01-10"), lat=slice(9, 8), lon=slice(-12, -11))',
        'm = v.mean("time")',
        'print(json.dumps({"lat": v.lat.values.tolist(), "lon": v.lon.values.tolist(), "mean": m.values.tolist()}))',
      ].join('\n'),
      [store],
    );
    expect(cube.dimensions[1]!.labels).toEqual(expected.lat);
    expect(cube.dimensions[2]!.labels).toEqual(expected.lon);
    const [band] = cube.data as number[][][];
    expect(band!.length).toBe(expected.mean.length);
    band!.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(expected.mean[i]![j]!, 4)));
  });

  it('answers a GeoTIFF that GDAL reads with the grid and the values xarray computes', async () => {
    const response = await result({
      load: load(['2024-01-01', '2024-01-11']),
      max: {
        process_id: 'reduce_dimension',
        arguments: {
          data: { from_node: 'load' },
          dimension: 't',
          reducer: callback('max', { data: { from_parameter: 'data' } }),
        },
      },
      save: { process_id: 'save_result', arguments: { data: { from_node: 'max' }, format: 'GTiff' }, result: true },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/tiff; application=geotiff');
    expect(response.headers.get('content-disposition')).toBe('inline; filename="result.tif"');
    const tiff = join(dataDir, 'result.tif');
    await writeFile(tiff, new Uint8Array(await response.arrayBuffer()));
    const read = await python<{
      epsg: string;
      transform: number[];
      size: number[];
      equal: boolean;
      nodata: string;
      centres: { west: number; north: number; columns: number; rows: number };
    }>(
      [
        'import json, sys, numpy, xarray',
        'from osgeo import gdal, osr',
        'gdal.UseExceptions()',
        'd = gdal.Open(sys.argv[1])',
        'srs = osr.SpatialReference(wkt=d.GetProjection())',
        'band = d.GetRasterBand(1)',
        'tif = band.ReadAsArray()',
        'ds = xarray.open_zarr(sys.argv[2], consolidated=True)',
        'v = ds["value"].sel(time=slice("2024-01-01", "2024-01-10"), lat=slice(9, 8), lon=slice(-12, -11)).max("time")',
        'print(json.dumps({"epsg": srs.GetAuthorityCode(None), "transform": list(d.GetGeoTransform()),',
        '  "size": [d.RasterXSize, d.RasterYSize], "equal": bool(numpy.allclose(tif, v.values, equal_nan=True)),',
        '  "nodata": str(band.GetNoDataValue()), "centres": {"west": float(v.lon[0]), "north": float(v.lat[0]),',
        '  "columns": int(v.lon.size), "rows": int(v.lat.size)}}))',
      ].join('\n'),
      [tiff, store],
    );
    expect(read.epsg).toBe('4326');
    expect(read.nodata).toBe('nan');
    expect(read.equal).toBe(true);
    const [west, dx, , north, , dy] = read.transform as [number, number, number, number, number, number];
    expect(dx).toBeCloseTo(0.05, 9);
    expect(dy).toBeCloseTo(-0.05, 9);
    // The image's corner is half a pixel beyond the first pixel centre inside the box.
    expect(west).toBeCloseTo(read.centres.west - 0.025, 6);
    expect(north).toBeCloseTo(read.centres.north + 0.025, 6);
    expect(read.size).toEqual([read.centres.columns, read.centres.rows]);
  });

  it("answers a PNG picture of one band in the colour map and range of the dataset's display", async () => {
    const response = await result({
      load: load(['2024-01-01', '2024-01-02']),
      save: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'PNG' }, result: true },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const png = join(dataDir, 'result.png');
    await writeFile(png, new Uint8Array(await response.arrayBuffer()));
    const read = await python<{
      size: number[];
      bands: number;
      low: number[];
      high: number[];
      alpha: number;
      values: number[];
    }>(
      [
        'import json, sys, numpy, xarray',
        'from osgeo import gdal',
        'gdal.UseExceptions()',
        'd = gdal.Open(sys.argv[1])',
        'rgba = numpy.stack([d.GetRasterBand(i + 1).ReadAsArray() for i in range(d.RasterCount)], axis=-1)',
        'ds = xarray.open_zarr(sys.argv[2], consolidated=True)',
        'v = ds["value"].sel(time="2024-01-01", lat=slice(9, 8), lon=slice(-12, -11)).values',
        'lo = numpy.unravel_index(numpy.nanargmin(v), v.shape)',
        'hi = numpy.unravel_index(numpy.nanargmax(v), v.shape)',
        'print(json.dumps({"size": [d.RasterXSize, d.RasterYSize], "bands": d.RasterCount,',
        '  "low": rgba[lo].tolist(), "high": rgba[hi].tolist(), "alpha": int(rgba[..., 3].min()),',
        '  "values": [float(v[lo]), float(v[hi])]}))',
      ].join('\n'),
      [png, store],
    );
    expect(read.bands).toBe(4);
    expect(read.alpha).toBe(255);
    // The sample source's display: viridis from 0 to 100 (manifests/data-sources/sample.yaml).
    const [low, high] = read.values as [number, number];
    expect(read.low).toEqual([...colorAt('viridis', low / 100), 255]);
    expect(read.high).toEqual([...colorAt('viridis', high / 100), 255]);
    expect(read.low).not.toEqual(read.high);
  });

  it('answers a netCDF file that xarray reads with the periods, grid and values of the store', async () => {
    const response = await result({
      load: load(['2024-01-01', '2024-01-05']),
      save: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'netCDF' }, result: true },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-netcdf');
    const nc = join(dataDir, 'result.nc');
    await writeFile(nc, new Uint8Array(await response.arrayBuffer()));
    const read = await python<{ variables: string[]; times: string[]; shape: number[]; equal: boolean; crs: string }>(
      [
        'import json, sys, numpy, xarray',
        'nc = xarray.open_dataset(sys.argv[1])',
        'ds = xarray.open_zarr(sys.argv[2], consolidated=True)',
        'v = ds["value"].sel(time=slice("2024-01-01", "2024-01-04"), lat=slice(9, 8), lon=slice(-12, -11))',
        'print(json.dumps({"variables": sorted(nc.data_vars), "times": [str(t)[:10] for t in nc.time.values],',
        '  "shape": list(nc["value"].shape), "crs": nc["spatial_ref"].attrs["crs_wkt"][:6],',
        '  "equal": bool(numpy.array_equal(nc["value"].values, v.values, equal_nan=True)',
        '    and numpy.allclose(nc.lat.values, v.lat.values) and numpy.allclose(nc.lon.values, v.lon.values))}))',
      ].join('\n'),
      [nc, store],
    );
    // `spatial_ref` is the grid mapping, which xarray reads as a coordinate of `value`.
    expect(read.variables).toEqual(['value']);
    expect(read.times).toEqual(['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04']);
    expect(read.shape[0]).toBe(4);
    expect(read.crs).toBe('GEOGCS');
    expect(read.equal).toBe(true);
  });

  it('aggregates over the served districts, through the openEO JavaScript client, as shapely and xarray do', async () => {
    const connection = await OpenEO.connect(running.url);
    // The builder's process methods are made at run time from /processes; `process()` is their typed form.
    const builder = await connection.buildProcess('districts');
    const cube = builder.process('load_collection', {
      id: 'sample',
      spatial_extent: null,
      temporal_extent: ['2024-01-01', '2024-01-04'],
    });
    const districts = builder.process('load_features', { id: 'sample-districts' });
    const means = builder.process('aggregate_spatial', {
      data: cube,
      geometries: districts,
      // A callback gets its parameters (data, context) and then the builder of its own graph.
      reducer: (data: unknown, _context: unknown, child: typeof builder) => child.process('mean', { data }),
    });
    const saved = builder.process('save_result', { data: means, format: 'JSON' });
    const { data } = await connection.computeResult(saved);
    const chunks: Buffer[] = [];
    for await (const chunk of data as AsyncIterable<Buffer>) chunks.push(chunk);
    const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CubeJson;
    const geometry = answer.dimensions.findIndex((d) => d.type === 'geometry');
    expect(geometry).toBeGreaterThanOrEqual(0);

    const collection = await running.cluster.get<FeatureCollection>(
      featureCollectionKind,
      'sample-districts',
      'default',
    );
    const parquet = await readFile(join(dataDir, 'store', collection!.status!.path!));
    const { document } = await readGeoParquetDocument(parquet, 'sample-districts');
    const geojson = join(dataDir, 'districts.geojson');
    await writeFile(geojson, JSON.stringify(document));
    const expected = await python<{ t: string[]; means: (number | null)[][] }>(
      [
        'import json, sys, numpy, xarray',
        'from shapely.geometry import Point, shape',
        'from shapely.prepared import prep',
        'ds = xarray.open_zarr(sys.argv[1], consolidated=True)',
        'v = ds["value"].sel(time=slice("2024-01-01", "2024-01-03"))',
        'lat, lon = v.lat.values, v.lon.values',
        'features = json.load(open(sys.argv[2]))["features"]',
        'means = []',
        'for f in features:',
        '    g = prep(shape(f["geometry"]))',
        '    mask = numpy.array([[g.contains(Point(x, y)) for x in lon] for y in lat])',
        '    means.append([float(numpy.nanmean(v.values[t][mask])) if mask.any() else None for t in range(v.sizes["time"])])',
        'print(json.dumps({"t": [str(t)[:10] for t in v.time.values], "means": means}))',
      ].join('\n'),
      [store, geojson],
    );
    expect(expected.means.flat().filter((v) => v !== null).length).toBeGreaterThan(expected.means.length);
    // The answer's dimensions: the geometry, the time, the band, in some order; read it by labels.
    const names = answer.dimensions.map((d) => d.name);
    const at = (values: unknown, index: Record<string, number>) =>
      names.reduce((v, name) => (v as unknown[])[index[name] ?? 0], values) as number | null;
    const t = answer.dimensions.find((d) => d.type === 'temporal')!;
    expect(t.labels.map((l) => String(l).slice(0, 10))).toEqual(expected.t);
    expected.means.forEach((series, g) =>
      series.forEach((mean, i) => {
        const value = at(answer.data, { [names[geometry]!]: g, [t.name]: i });
        if (mean === null) expect(value).toBeNull();
        else expect(value).toBeCloseTo(mean, 4);
      }),
    );
  });

  it('writes district aggregates as GeoJSON, CSV and GeoParquet with the values of the JSON answer', async () => {
    const graph = (format: string) => ({
      load: load(['2024-01-01', '2024-01-03'], null),
      districts: { process_id: 'load_features', arguments: { id: 'sample-districts' } },
      agg: {
        process_id: 'aggregate_spatial',
        arguments: {
          data: { from_node: 'load' },
          geometries: { from_node: 'districts' },
          reducer: callback('mean', { data: { from_parameter: 'data' } }),
        },
      },
      save: { process_id: 'save_result', arguments: { data: { from_node: 'agg' }, format }, result: true },
    });
    const json = (await (await result(graph('JSON'))).json()) as CubeJson;
    const names = json.dimensions.map((d) => d.name);
    expect(names).toEqual(['geometry', 't', 'bands']);
    const cell = (g: number, t: number) => (json.data as (number | null)[][][])[g]![t]![0]!;

    const geojson = await result(graph('GeoJSON'));
    expect(geojson.headers.get('content-type')).toBe('application/geo+json; charset=utf-8');
    const collection = (await geojson.json()) as {
      features: { id: unknown; geometry: { type: string }; properties: Record<string, unknown> }[];
    };
    expect(collection.features).toHaveLength(json.dimensions[0]!.labels.length);
    const [t0, t1] = json.dimensions[1]!.labels as string[];
    collection.features.forEach((feature, g) => {
      expect(feature.geometry.type).toBe('Polygon');
      expect(feature.properties[`${t0}|value`]).toBe(cell(g, 0));
      expect(feature.properties[`${t1}|value`]).toBe(cell(g, 1));
    });

    const csv = await result(graph('CSV'));
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('inline; filename="result.csv"');
    const rows = (await csv.text()).trimEnd().split('\r\n');
    expect(rows[0]).toBe('geometry,t,bands,value');
    expect(rows).toHaveLength(1 + json.dimensions[0]!.labels.length * 2);
    const [label, t, band, value] = rows[3]!.split(',');
    expect([label, t, band]).toEqual([String(json.dimensions[0]!.labels[1]), t0, 'value']);
    expect(Number(value)).toBe(cell(1, 0));

    const parquet = await result(graph('Parquet'));
    expect(parquet.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    const table = tableFromIPC(readParquet(new Uint8Array(await parquet.arrayBuffer())).intoIPCStream());
    expect(table.numRows).toBe(json.dimensions[0]!.labels.length);
    expect(JSON.parse(table.schema.metadata.get('geo')!)).toMatchObject({
      primary_column: 'geometry',
      version: '1.1.0',
    });
    const rowsOf = table.toArray().map((row) => row.toJSON() as Record<string, unknown>);
    rowsOf.forEach((row, g) => {
      expect(row.geometry).toBeInstanceOf(Uint8Array);
      expect(row[`${t0}|value`]).toBe(cell(g, 0));
      expect(row.feature_id).toEqual(json.dimensions[0]!.labels[g]);
    });

    // A raster cube is not a table of geometries.
    const raster = await result({
      load: load(['2024-01-01', '2024-01-02']),
      save: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'CSV' }, result: true },
    });
    expect(raster.status).toBe(400);
    expect(await raster.json()).toMatchObject({ code: 'FormatUnsuitable' });
  });

  it('refuses with openEO bodies: no graph, an unknown collection, an unknown process', async () => {
    const missing = await fetch(`${running.url}/result`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ process: {} }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ code: 'ProcessGraphMissing', links: [] });

    const nowhere = await result({
      load: {
        process_id: 'load_collection',
        arguments: { id: 'no-such', spatial_extent: null, temporal_extent: null },
        result: true,
      },
    });
    expect(nowhere.status).toBe(404);
    expect(await nowhere.json()).toMatchObject({
      code: 'CollectionNotFound',
      message: expect.stringContaining("node 'load'"),
    });

    const unsupported = await result({ x: { process_id: 'no_such_process', arguments: {}, result: true } });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toMatchObject({ code: 'ProcessUnsupported' });
  });
});
