import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { python } from '../../test/support/python.ts';
import { startUpstream, type Upstream } from '../../test/support/upstream.ts';
import { gridCovering } from '../stores/raster-grid.ts';
import { openRemoteTiff } from './geotiff.ts';
import { readTiffOnGrid, readTiffWindow } from './tiff-window.ts';

/**
 * 512 x 512 GeoTIFFs in 256 x 256 tiles on a 0.05 degree grid from (-20, 20), each with a smooth field and no-data
 * cells: deflate with the floating-point predictor; int16 with the horizontal predictor; big-endian int16; and one whose
 * lower tiles start with rows of noise, so that their first rows take more of the stream than their share. Prints
 * each file's tile offsets and sizes.
 */
const MAKE_TIFFS = `
import json, os, sys
import numpy as np
from osgeo import gdal
gdal.UseExceptions()
root = sys.argv[1]
jj, ii = np.mgrid[0:512, 0:512]
smooth = 20 + 15 * np.sin(ii / 17.0) * np.cos(jj / 23.0)
noise = np.random.default_rng(7).random((512, 512)) * 1000
files = {
    'float-predictor.tif': (smooth.astype('float32'), gdal.GDT_Float32, ['PREDICTOR=3']),
    'int16-predictor.tif': ((smooth * 100).astype('int16'), gdal.GDT_Int16, ['PREDICTOR=2']),
    'int16-big-endian.tif': ((smooth * 100).astype('int16'), gdal.GDT_Int16, ['ENDIANNESS=BIG']),
    'noisy-rows.tif': (np.where((jj >= 256) & (jj < 320), noise, 0).astype('float32'), gdal.GDT_Float32, []),
}
layout = {}
for name, (values, kind, options) in files.items():
    values[(ii + jj) % 37 == 0] = -9999
    path = os.path.join(root, name)
    d = gdal.GetDriverByName('GTiff').Create(path, 512, 512, 1, kind,
                                            ['TILED=YES', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256', 'COMPRESS=DEFLATE'] + options)
    d.SetGeoTransform([-20, 0.05, 0, 20, 0, -0.05])
    d.SetProjection('EPSG:4326')
    d.GetRasterBand(1).SetNoDataValue(-9999)
    d.GetRasterBand(1).WriteArray(values)
    del d
    d = gdal.Open(path)
    b = d.GetRasterBand(1)
    layout[name] = [[int(b.GetMetadataItem(f'BLOCK_{k}_{x}_{y}', 'TIFF')) for k in ('OFFSET', 'SIZE')]
                    for y in range(2) for x in range(2)]
print(json.dumps(layout))
`;

/** GDAL's reading of a pixel window, no-data as NaN: the independent expectation. */
const GDAL_WINDOW = `
import json, sys
import numpy as np
from osgeo import gdal
path, out, x0, y0, w, h = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
d = gdal.Open(path)
a = d.GetRasterBand(1).ReadAsArray(x0, y0, w, h).astype('<f4')
a[a == -9999] = np.nan
a.tofile(out)
print('{}')
`;

/** Tile offsets and sizes by file, tiles in row order. */
type TileLayout = Record<string, [number, number][]>;

describe('readTiffWindow and readTiffOnGrid over HTTP', () => {
  let root: string;
  let upstream: Upstream;
  let tiles: TileLayout;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-tiff-window-'));
    tiles = await python<TileLayout>(MAKE_TIFFS, [root]);
    upstream = await startUpstream(root);
  }, 60_000);
  afterAll(async () => {
    await upstream?.close();
    await rm(root, { recursive: true, force: true });
  });

  /** The extent of pixel columns [x0, x1) and rows [y0, y1). */
  const bboxOf = (x0: number, y0: number, x1: number, y1: number): [number, number, number, number] => [
    -20 + x0 * 0.05,
    20 - y1 * 0.05,
    -20 + x1 * 0.05,
    20 - y0 * 0.05,
  ];
  const gdalWindow = async (name: string, x0: number, y0: number, w: number, h: number) => {
    const out = join(root, `${name}.expected.f32`);
    await python(GDAL_WINDOW, [join(root, name), out, ...[x0, y0, w, h].map(String)]);
    return new Float32Array((await readFile(out)).buffer.slice(0));
  };
  /** The byte ranges asked of one tile, as [start, length]. */
  const rangesOf = (name: string, tile: number) => {
    const [offset] = tiles[name]![tile]!;
    return upstream.requests
      .map((r) => /bytes=(\d+)-(\d+)$/.exec(r))
      .filter((m) => m && Number(m[1]) === offset)
      .map((m) => [Number(m![1]), Number(m![2]) - Number(m![1]) + 1]);
  };
  /** Pixel columns [x0, x1) and rows [y0, y1) of `name` read over HTTP, the upstream's requests of this read only. */
  const readFresh = async (name: string, x0: number, y0: number, x1: number, y1: number) => {
    upstream.requests.length = 0;
    return (await readTiffWindow(await openRemoteTiff(`${upstream.url}/${name}`, {}), bboxOf(x0, y0, x1, y1))).values;
  };
  /** Asserts that of `tile` one range was asked for, less than half its stream. */
  const expectFirstPartOnly = (name: string, tile: number) => {
    const ranges = rangesOf(name, tile);
    expect(ranges).toHaveLength(1);
    expect(ranges[0]![1]).toBeLessThan(tiles[name]![tile]![1] / 2);
  };

  it.each([['float-predictor.tif'], ['int16-predictor.tif'], ['int16-big-endian.tif']])(
    'reads a window crossing into the lower tiles from the first part of their streams only, equal to GDAL (%s)',
    async (name) => {
      const values = await readFresh(name, 10, 200, 40, 266);
      expect(values).toEqual(await gdalWindow(name, 10, 200, 30, 66));
      expect(values.some(Number.isNaN)).toBe(true);
      // The upper tile whole; of the lower one, which the window enters by 10 of its 256 rows, a part.
      expect(rangesOf(name, 0)).toEqual([[tiles[name]![0]![0], tiles[name]![0]![1]]]);
      expectFirstPartOnly(name, 2);
    },
  );

  it.each([['float-predictor.tif'], ['int16-big-endian.tif']])(
    'reads a window that ends inside the upper tiles from the first part of their streams, equal to GDAL (%s)',
    async (name) => {
      // Rows 30 to 59: both upper tiles as far as their row 60 of 256, no lower tile.
      expect(await readFresh(name, 200, 30, 300, 60)).toEqual(await gdalWindow(name, 200, 30, 100, 30));
      expectFirstPartOnly(name, 0);
      expectFirstPartOnly(name, 1);
      expect(rangesOf(name, 2)).toEqual([]);
      expect(rangesOf(name, 3)).toEqual([]);
    },
  );

  it('fetches the rest of a tile whose first rows take more of its stream than their share', async () => {
    const name = 'noisy-rows.tif';
    expect(await readFresh(name, 0, 250, 256, 300)).toEqual(await gdalWindow(name, 0, 250, 256, 50));
    const [offset, size] = tiles[name]![2]!;
    const lower = rangesOf(name, 2);
    expect(lower).toHaveLength(2);
    expect(lower[0]![1]).toBeLessThan(size);
    expect(lower[1]).toEqual([offset, size]);
  });

  it('places the file onto a grid that reaches past its edge, NaN where the file does not reach', async () => {
    const name = 'float-predictor.tif';
    // Columns -10 to 20 of the file: its first 20, after 10 cells west of it.
    const grid = gridCovering(bboxOf(-10, 100, 20, 110), 0.05);
    const plane = await readTiffOnGrid(await openRemoteTiff(`${upstream.url}/${name}`, {}), grid, -9999);
    const inside = await gdalWindow(name, 0, 100, 20, 10);
    expect(plane).toHaveLength(30 * 10);
    for (let y = 0; y < 10; y++) {
      expect(plane.subarray(y * 30, y * 30 + 10).every(Number.isNaN)).toBe(true);
      expect(plane.subarray(y * 30 + 10, y * 30 + 30)).toEqual(inside.subarray(y * 20, y * 20 + 20));
    }
  });

  it('refuses a grid of another cell size', async () => {
    const grid = gridCovering(bboxOf(0, 0, 10, 10), 0.1);
    await expect(
      readTiffOnGrid(await openRemoteTiff(`${upstream.url}/float-predictor.tif`, {}), grid),
    ).rejects.toMatchObject({ code: 'UnsupportedLayout' });
  });
});
