import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { python } from '../../test/support/python.ts';
import { periodRange } from '../periods/index.ts';
import { sampleProvider } from '../providers/sample.ts';
import { chunkShape, RasterCubeWriter } from './raster-cube.ts';

const READERS = join(import.meta.dirname, '../../test/interop/zarr-readers.py');

interface ReaderView {
  xarray: {
    dims: string[];
    shape: number[];
    time: string[];
    lat0: number;
    lon0: number;
    epsg: number | null;
    transform: number[];
    units: string;
  };
  gdal: { size: number[]; geotransform: number[]; epsg: number | null; first_band_equals_xarray: boolean };
}

describe('chunkShape', () => {
  it('aims at about 2 MiB of float32 per chunk, spatial chunks at most 256', () => {
    expect(chunkShape(366, 62, 66)).toEqual([128, 62, 66]);
    expect(chunkShape(20, 62, 66)).toEqual([20, 62, 66]);
    expect(chunkShape(3650, 1000, 800)).toEqual([8, 256, 256]);
  });
});

describe('RasterCubeWriter', () => {
  let dir: string;
  const periods = periodRange('daily', '2024-02-20', '2024-03-10');
  const bbox: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];
  const expected: Float32Array[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-cube-'));
    // 0.01 degrees gives 330 x 310 cells: 2 x 2 spatial chunks with padded edges and 3 time blocks of 8.
    const session = await sampleProvider.open({
      parameters: { resolution: 0.01 },
      bbox,
      signal: new AbortController().signal,
    });
    const writer = await RasterCubeWriter.create(dir, {
      variable: 'value',
      units: '1',
      longName: 'Sample value',
      periodType: 'daily',
      periods,
      grid: session.grid,
      attributes: { title: 'test' },
    });
    expect(writer.chunkShape).toEqual([8, 256, 256]);
    for (const period of periods) {
      const values = await session.read(period);
      expected.push(values);
      await writer.append(values);
    }
    const coverage = await writer.finish();
    expect(coverage).toEqual({
      spatial: { xmin: -13.5, ymin: 6.9, xmax: -10.2, ymax: 10 },
      temporal: { start: '2024-02-20', end: '2024-03-10' },
    });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes consolidated metadata naming every array', async () => {
    const consolidated = JSON.parse(await readFile(join(dir, '.zmetadata'), 'utf8'));
    expect(Object.keys(consolidated.metadata).sort()).toEqual(
      [
        '.zattrs',
        '.zgroup',
        ...['lat', 'lon', 'spatial_ref', 'time', 'value'].flatMap((a) => [`${a}/.zarray`, `${a}/.zattrs`]),
      ].sort(),
    );
    expect(consolidated.metadata['value/.zarray']).toMatchObject({ shape: [20, 310, 330], chunks: [8, 256, 256] });
    expect((await readdir(join(dir, 'value'))).filter((k) => !k.startsWith('.')).sort()).toHaveLength(3 * 2 * 2);
  });

  it('is read by xarray, rioxarray and GDAL with the values and georeferencing written', async () => {
    const valuesFile = join(dir, '..', `values-${process.pid}.f32`);
    const view = await python<ReaderView>(await readFile(READERS, 'utf8'), [dir, 'value', valuesFile]);
    try {
      expect(view.xarray).toMatchObject({
        dims: ['time', 'lat', 'lon'],
        shape: [20, 310, 330],
        epsg: 4326,
        units: '1',
      });
      expect(view.xarray.time[0]).toBe('2024-02-20T00:00:00');
      expect(view.xarray.time[19]).toBe('2024-03-10T00:00:00');
      expect(view.xarray.lat0).toBeCloseTo(9.995, 9);
      expect(view.xarray.transform.map((v) => Math.round(v * 1e6) / 1e6)).toEqual([-13.5, 0.01, 0, 10, 0, -0.01]);
      const read = new Float32Array((await readFile(valuesFile)).buffer.slice(0));
      const written = new Float32Array(expected.length * expected[0]!.length);
      expected.forEach((plane, t) => written.set(plane, t * plane.length));
      expect(read.length).toBe(written.length);
      expect(Buffer.from(read.buffer).equals(Buffer.from(written.buffer))).toBe(true);

      expect(view.gdal.size).toEqual([20, 310, 330]);
      expect(view.gdal.epsg).toBe(4326);
      expect(view.gdal.geotransform.map((v) => Math.round(v * 1e6) / 1e6)).toEqual([-13.5, 0.01, 0, 10, 0, -0.01]);
      expect(view.gdal.first_band_equals_xarray).toBe(true);
    } finally {
      await rm(valuesFile, { force: true });
    }
  });
});
