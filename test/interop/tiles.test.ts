/**
 * Map tiles against Debian's GDAL: a tile of the sample dataset, and the same period exported by `POST /result` as
 * a GeoTIFF and warped by `gdalwarp` to the tile's Web Mercator bounds (256 × 256, nearest neighbour), coloured
 * with the same colour map and range, agree pixel by pixel within one colour step.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { colorAt } from '../../core/render/colormap.ts';
import { tileMercatorBounds } from '../../core/render/tiles.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { python } from '../support/python.ts';

let dataDir: string;
let running: RunningEmbedded;

describe('map tiles (embedded, against GDAL)', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-tiles-'));
    running = await startEmbedded(dataDir);
    await eventually(
      async () => currentVersionOf(await running.cluster.get<Dataset>(datasetKind, 'sample', 'default')),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  }, 90_000);

  afterAll(async () => {
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('draws a tile as gdalwarp resamples the same period, within one colour step', async () => {
    const period = '2024-03-10';
    const tilejson = (await (await fetch(`${running.url}/datasets/sample/tiles.json`)).json()) as {
      colormap: string;
      range?: [number, number];
      periods: string[];
    };
    expect(tilejson.periods).toContain(period);
    // Zoom 7 over the sample's extent (13.5°W to 10.2°W, 6.9°N to 10°N).
    const [z, x, y] = [7, 59, 60];
    const tile = await fetch(`${running.url}/datasets/sample/tiles/${z}/${x}/${y}.png?time=${period}`);
    expect(tile.status).toBe(200);
    await writeFile(join(dataDir, 'tile.png'), new Uint8Array(await tile.arrayBuffer()));
    const tiff = await fetch(`${running.url}/result`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        process: {
          process_graph: {
            load: {
              process_id: 'load_collection',
              arguments: { id: 'sample', spatial_extent: null, temporal_extent: [period, '2024-03-11'] },
            },
            save: {
              process_id: 'save_result',
              arguments: { data: { from_node: 'load' }, format: 'GTiff' },
              result: true,
            },
          },
        },
      }),
    });
    expect(tiff.status).toBe(200);
    await writeFile(join(dataDir, 'period.tif'), new Uint8Array(await tiff.arrayBuffer()));
    const m = tileMercatorBounds(z, x, y);
    const read = await python<{ rgba: number[]; warped: (number | null)[]; lo: number; hi: number }>(
      [
        'import json, subprocess, sys, numpy',
        'from osgeo import gdal',
        'gdal.UseExceptions()',
        'd = sys.argv[1]',
        'subprocess.run(["gdalwarp", "-q", "-overwrite", "-t_srs", "EPSG:3857", "-te", *sys.argv[2:6], "-ts", "256", "256",',
        '  "-r", "near", "-dstnodata", "nan", d + "/period.tif", d + "/warped.tif"], check=True)',
        // A dataset must outlive its bands: GDAL's Python bindings crash otherwise.
        'w = gdal.Open(d + "/warped.tif")',
        'warped = w.GetRasterBand(1).ReadAsArray().astype(float)',
        'p = gdal.Open(d + "/period.tif")',
        'plane = p.GetRasterBand(1).ReadAsArray()',
        'png = gdal.Open(d + "/tile.png")',
        'rgba = numpy.stack([png.GetRasterBand(i + 1).ReadAsArray() for i in range(4)], axis=-1)',
        'print(json.dumps({"rgba": rgba.ravel().tolist(), "lo": float(numpy.nanmin(plane)), "hi": float(numpy.nanmax(plane)),',
        '  "warped": [None if numpy.isnan(v) else float(v) for v in warped.ravel()]}))',
      ].join('\n'),
      [dataDir, String(m.west), String(m.south), String(m.east), String(m.north)],
    );
    const [lo, hi] = tilejson.range ?? [read.lo, read.hi];
    let agree = 0;
    let drawn = 0;
    read.warped.forEach((v, p) => {
      const got = read.rgba.slice(p * 4, p * 4 + 4);
      if (v === null) {
        if (got[3] === 0) agree++;
        return;
      }
      drawn++;
      const want = colorAt(tilejson.colormap, Math.min(1, Math.max(0, (v - lo) / (hi - lo))));
      if (got[3] === 255 && want.every((c, k) => Math.abs(c - got[k]!) <= 4)) agree++;
    });
    // The tile is over the data, not beside it.
    expect(drawn).toBeGreaterThan(10_000);
    expect(agree / read.warped.length).toBeGreaterThanOrEqual(0.99);
  });
});
