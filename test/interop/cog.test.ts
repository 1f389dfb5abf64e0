/**
 * The GTiff results are Cloud Optimized GeoTIFFs: GDAL's own validator accepts them, and GDAL reads back the
 * pixels, the grid, the reference system, the nodata value and the overviews.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCog } from '../../core/processing/results/cog.ts';
import { python } from '../support/python.ts';

let dir: string;

const VALIDATOR = '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py';

interface Read {
  errors: string[];
  warnings: string[];
  size: number[];
  bands: number;
  overviews: number[][];
  geo: number[];
  epsg: string;
  nodata: string;
  pixels: (number | null)[][][];
}

async function readBack(file: string): Promise<Read> {
  return python<Read>(
    [
      'import json, math, sys',
      'from osgeo import gdal, osr',
      'gdal.UseExceptions()',
      `sys.path.insert(0, "${VALIDATOR.slice(0, VALIDATOR.lastIndexOf('/'))}")`,
      'import validate_cloud_optimized_geotiff as v',
      'warnings, errors, _ = v.validate(sys.argv[1], full_check=True)',
      'd = gdal.Open(sys.argv[1])',
      'b = d.GetRasterBand(1)',
      'srs = osr.SpatialReference(wkt=d.GetProjection())',
      'clean = lambda a: [[None if math.isnan(x) else x for x in row] for row in a.tolist()]',
      'print(json.dumps({"errors": errors, "warnings": warnings, "size": [d.RasterXSize, d.RasterYSize],',
      '  "bands": d.RasterCount, "overviews": [[b.GetOverview(i).XSize, b.GetOverview(i).YSize] for i in range(b.GetOverviewCount())],',
      '  "geo": list(d.GetGeoTransform()), "epsg": srs.GetAuthorityCode(None), "nodata": str(b.GetNoDataValue()),',
      '  "pixels": [clean(d.GetRasterBand(i + 1).ReadAsArray()) for i in range(d.RasterCount)]}))',
    ].join('\n'),
    [file],
  );
}

describe('Cloud Optimized GeoTIFF', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-cog-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a large image tiled with overviews that the validator accepts and GDAL reads back', async () => {
    const [width, height] = [600, 520];
    const pixels = Float32Array.from({ length: width * height }, (_, i) => (i % 7 === 0 ? Number.NaN : i / 10));
    const file = join(dir, 'large.tif');
    await writeFile(
      file,
      writeCog(width, height, 1, pixels, { dx: 0.05, dy: 0.05, west: -13.5, north: 10, epsg: 4326 }),
    );
    const read = await readBack(file);
    expect(read.errors).toEqual([]);
    expect(read.warnings).toEqual([]);
    expect(read.size).toEqual([width, height]);
    expect(read.overviews).toEqual([
      [300, 260],
      [150, 130],
    ]);
    expect(read.geo).toEqual([-13.5, 0.05, 0, 10, 0, -0.05]);
    expect(read.epsg).toBe('4326');
    expect(read.nodata).toBe('nan');
    const flat = read.pixels[0]!.flat();
    flat.forEach((v, i) => (i % 7 === 0 ? expect(v).toBeNull() : expect(v).toBeCloseTo(pixels[i]!, 3)));
  });

  it('writes several bands in a projected reference system', async () => {
    const pixels = Float32Array.from({ length: 3 * 4 * 5 }, (_, i) => i);
    const file = join(dir, 'bands.tif');
    await writeFile(file, writeCog(5, 4, 3, pixels, { dx: 30, dy: 30, west: 500_000, north: 1_000_000, epsg: 32628 }));
    const read = await readBack(file);
    expect(read.errors).toEqual([]);
    expect(read.bands).toBe(3);
    expect(read.epsg).toBe('32628');
    expect(read.overviews).toEqual([]);
    // Pixel-interleaved in, one band per sample out.
    expect(read.pixels[1]![0]![0]).toBe(1);
    expect(read.pixels[2]![3]![4]).toBe((3 * 5 + 4) * 3 + 2);
  });
});
