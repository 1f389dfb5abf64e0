import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { python } from '../../../test/support/python.ts';
import { periodRange } from '../../periods/index.ts';
import { sampleProvider } from '../../providers/sample.ts';
import { writeNetcdfCube } from './write.ts';
import type { RasterCubeDescription } from '../raster-cube.ts';

const run = promisify(execFile);

// argv: file, variable, file to receive the variable's values (float32, C order) as xarray decodes them.
const XARRAY_READER = `
import json, sys
import numpy as np
import xarray as xr
import rioxarray  # noqa: F401  registers the .rio accessor
path, variable, values_out = sys.argv[1:4]
ds = xr.open_dataset(path, engine='netcdf4')
da = ds[variable]
np.asarray(da.values, dtype='<f4').tofile(values_out)
print(json.dumps({
    'dims': list(da.dims),
    'shape': list(da.shape),
    'time': [str(t)[:19] for t in ds['time'].values],
    'epsg': da.rio.crs.to_epsg() if da.rio.crs else None,
    'units': da.attrs.get('units'),
    'chunksizes': list(da.encoding['chunksizes']),
    'zlib': bool(da.encoding.get('zlib')),
    'attrs': {k: str(v) for k, v in ds.attrs.items()},
}))
`;

// argv: file, variable, file to receive the first band (float32, C order).
const GDAL_READER = `
import json, sys
from osgeo import gdal
gdal.UseExceptions()
path, variable, band_out = sys.argv[1:4]
raster = gdal.Open(f'NETCDF:"{path}":{variable}')
raster.GetRasterBand(1).ReadAsArray().astype('<f4').tofile(band_out)
srs = raster.GetSpatialRef()
print(json.dumps({
    'bands': raster.RasterCount,
    'size': [raster.RasterXSize, raster.RasterYSize],
    'geotransform': list(raster.GetGeoTransform()),
    'epsg': int(srs.GetAuthorityCode(None)) if srs is not None and srs.GetAuthorityCode(None) else None,
}))
`;

interface XarrayView {
  dims: string[];
  shape: number[];
  time: string[];
  epsg: number | null;
  units: string | null;
  chunksizes: number[];
  zlib: boolean;
  attrs: Record<string, string>;
}

interface GdalView {
  bands: number;
  size: number[];
  geotransform: number[];
  epsg: number | null;
}

const bbox: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];

async function sampleCube(
  resolution: number,
  start: string,
  end: string,
): Promise<{ description: RasterCubeDescription; planes: Float32Array[] }> {
  const periods = periodRange('daily', start, end);
  const session = await sampleProvider.open({ parameters: { resolution }, bbox, signal: new AbortController().signal });
  const planes: Float32Array[] = [];
  for (const period of periods) planes.push(await session.read(period));
  return {
    description: {
      variable: 'value',
      units: '1',
      longName: 'Sample value',
      periodType: 'daily',
      periods,
      grid: session.grid,
      attributes: { title: 'test', source: 'synthetic — Stratus sample provider' },
    },
    planes,
  };
}

/** Runs a reader script that writes float32 values to a side file; returns its JSON and those values' bytes. */
async function readWith<T>(script: string, file: string, dir: string): Promise<{ view: T; values: Buffer }> {
  const valuesFile = join(dir, `values-${process.pid}.f32`);
  try {
    const view = await python<T>(script, [file, 'value', valuesFile]);
    return { view, values: await readFile(valuesFile) };
  } finally {
    await rm(valuesFile, { force: true });
  }
}

const concat = (planes: Float32Array[]): Buffer =>
  Buffer.concat(planes.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));

describe('writeNetcdfCube', () => {
  let dir: string;
  let file: string;
  let cube: Awaited<ReturnType<typeof sampleCube>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-netcdf-'));
    file = join(dir, 'cube.nc');
    cube = await sampleCube(0.05, '2024-01-01', '2024-01-05');
    await writeNetcdfCube(file, cube.description, cube.planes);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('leaves only the renamed file behind', async () => {
    expect(await readdir(dir)).toEqual(['cube.nc']);
  });

  it('is read by ncdump as netCDF-4 with real dimensions and text attributes', async () => {
    const { stdout } = await run('/usr/bin/ncdump', ['-h', file]);
    expect(stdout).toMatch(/^\ttime = 5 ;$/m);
    expect(stdout).toMatch(/^\tlat = 62 ;$/m);
    expect(stdout).toMatch(/^\tlon = 66 ;$/m);
    expect(stdout).toMatch(/^\tint64 time\(time\) ;$/m);
    expect(stdout).toMatch(/^\tdouble lat\(lat\) ;$/m);
    expect(stdout).toMatch(/^\tdouble lon\(lon\) ;$/m);
    expect(stdout).toMatch(/^\tint64 spatial_ref ;$/m);
    expect(stdout).toMatch(/^\tfloat value\(time, lat, lon\) ;$/m);
    expect(stdout).toMatch(/^\t\ttime:units = "days since 1970-01-01" ;$/m);
    expect(stdout).toMatch(/^\t\tvalue:_FillValue = NaNf ;$/m);
    expect(stdout).toMatch(/^\t\tvalue:grid_mapping = "spatial_ref" ;$/m);
    expect(stdout).toMatch(/^\t\tspatial_ref:GeoTransform = "-13.5 0.05 0 10 0 -0.05" ;$/m);
    expect(stdout).toMatch(/^\t\t:Conventions = "CF-1.8" ;$/m);
  });

  it('is read by xarray and rioxarray with the values, times and CRS written', async () => {
    const { view, values } = await readWith<XarrayView>(XARRAY_READER, file, dir);
    expect(view).toMatchObject({
      dims: ['time', 'lat', 'lon'],
      shape: [5, 62, 66],
      epsg: 4326,
      units: '1',
      chunksizes: [5, 62, 66],
      zlib: true,
      attrs: { Conventions: 'CF-1.8', title: 'test', source: 'synthetic — Stratus sample provider' },
    });
    expect(view.time).toEqual([
      '2024-01-01T00:00:00',
      '2024-01-02T00:00:00',
      '2024-01-03T00:00:00',
      '2024-01-04T00:00:00',
      '2024-01-05T00:00:00',
    ]);
    expect(values.equals(concat(cube.planes))).toBe(true);
  });

  it('is read by GDAL as one band per period with the georeferencing written', async () => {
    const { view, values } = await readWith<GdalView>(GDAL_READER, file, dir);
    expect(view.bands).toBe(5);
    expect(view.size).toEqual([66, 62]);
    expect(view.epsg).toBe(4326);
    expect(view.geotransform.map((v) => Math.round(v * 1e6) / 1e6)).toEqual([-13.5, 0.05, 0, 10, 0, -0.05]);
    expect(values.equals(concat(cube.planes.slice(0, 1)))).toBe(true);
  });

  it('writes several time blocks of chunks with partial edge chunks', async () => {
    // 0.01 degrees gives 330 x 310 cells: 2 x 2 spatial chunks and 3 time blocks of 8, the last one partial.
    const large = await sampleCube(0.01, '2024-02-20', '2024-03-10');
    const largeFile = join(dir, 'large.nc');
    await writeNetcdfCube(largeFile, large.description, large.planes);
    try {
      const { view, values } = await readWith<XarrayView>(XARRAY_READER, largeFile, dir);
      expect(view).toMatchObject({ shape: [20, 310, 330], chunksizes: [8, 256, 256], zlib: true });
      expect(view.time[19]).toBe('2024-03-10T00:00:00');
      expect(values.equals(concat(large.planes))).toBe(true);
    } finally {
      await rm(largeFile, { force: true });
    }
  });

  it('writes the same bytes for the same cube an hour later: HDF5 object times do not follow the clock', async () => {
    const later = join(dir, 'later.nc');
    const now = Date.now;
    Date.now = () => now() + 3_600_000;
    try {
      await writeNetcdfCube(later, cube.description, cube.planes);
    } finally {
      Date.now = now;
    }
    try {
      expect((await readFile(later)).equals(await readFile(file))).toBe(true);
    } finally {
      await rm(later, { force: true });
    }
  });

  it('rejects planes that do not match the periods and grid, writing nothing', async () => {
    const target = join(dir, 'rejected.nc');
    await expect(writeNetcdfCube(target, cube.description, cube.planes.slice(1))).rejects.toThrow(
      '5 periods declared but 4 planes given',
    );
    const short = [...cube.planes.slice(1), new Float32Array(3)];
    await expect(writeNetcdfCube(target, cube.description, short)).rejects.toThrow(
      'plane 4: expected 4092 values, got 3',
    );
    expect(await readdir(dir)).toEqual(['cube.nc']);
  });

  it('removes the temporary file when writing fails midway', async () => {
    const description = { ...cube.description, attributes: { flag: true } };
    await expect(writeNetcdfCube(join(dir, 'failed.nc'), description, cube.planes)).rejects.toThrow(
      'NetCDF attribute flag: only strings and numbers are supported',
    );
    expect(await readdir(dir)).toEqual(['cube.nc']);
  });
});
