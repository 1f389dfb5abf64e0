import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { python } from '../../test/support/python.ts';
import { startUpstream, type Upstream } from '../../test/support/upstream.ts';
import { parsePeriod, periodRange } from '../periods/index.ts';
import { worldPopProvider, worldPopUrl } from './worldpop.ts';

const BBOX: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];

/** Striped, LZW-compressed country GeoTIFFs with -99999 outside the country, as WorldPop publishes them. */
const MAKE_TIFFS = `
import os, sys
import numpy as np
from osgeo import gdal
gdal.UseExceptions()
root = sys.argv[1]
for year in (2024, 2025):
    jj, ii = np.mgrid[0:310, 0:320]
    values = ((ii + jj) % 50 + (year - 2000)).astype('float32')
    values[jj > 300 - ii] = -99999
    path = f"{root}/R2025A/{year}/SLE/v1/100m/constrained/sle_pop_{year}_CN_100m_R2025A_v1.tif"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    d = gdal.GetDriverByName('GTiff').Create(path, 320, 310, 1, gdal.GDT_Float32, ['COMPRESS=LZW'])
    d.SetGeoTransform([-13.4, 0.01, 0, 10.0, 0, -0.01])
    d.SetProjection('EPSG:4326')
    b = d.GetRasterBand(1)
    b.SetNoDataValue(-99999)
    b.WriteArray(values)
    d = None
print('{}')
`;

/** GDAL's reading of the whole fixture (it lies inside the extent), no-data as NaN. */
const GDAL_READ = `
import sys
import numpy as np
from osgeo import gdal
a = gdal.Open(sys.argv[1]).ReadAsArray().astype('<f4')
a[a == -99999] = np.nan
a.tofile(sys.argv[2])
print('{}')
`;

describe('worldpop provider against a local WorldPop server', () => {
  let root: string;
  let upstream: Upstream;
  const layout = { release: 'R2025A', version: 'v1', resolution: '100m', iso3: 'SLE', constrained: true };
  const open = (years: string[], extra: Record<string, unknown> = {}) =>
    worldPopProvider.open({
      parameters: { baseUrl: `${upstream.url}/GIS/Population/Global_2015_2030`, iso3: 'SLE', backoffMs: 5, ...extra },
      bbox: BBOX,
      signal: new AbortController().signal,
      periods: years.map((y) => parsePeriod('yearly', y)),
    });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-worldpop-'));
    await python(MAKE_TIFFS, [join(root, 'GIS/Population/Global_2015_2030')]);
    upstream = await startUpstream(root);
  }, 60_000);
  afterAll(async () => {
    await upstream?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('builds the URL of a release, year and country', () => {
    expect(worldPopUrl({ base: 'https://w/GIS/Population/Global_2015_2030', ...layout }, 2025)).toBe(
      'https://w/GIS/Population/Global_2015_2030/R2025A/2025/SLE/v1/100m/constrained/sle_pop_2025_CN_100m_R2025A_v1.tif',
    );
  });

  it("reads each year on the file's own grid, clipped to the extent, equal to what GDAL reads", async () => {
    const session = await open(['2024', '2025']);
    expect([session.grid.lat.length, session.grid.lon.length]).toEqual([310, 320]);
    expect(session.grid.lon[0]).toBeCloseTo(-13.395, 9);
    for (const [t, year] of periodRange('yearly', '2024', '2025').entries()) {
      const values = await session.read(year);
      const file = join(root, `GIS/Population/Global_2015_2030/R2025A/${2024 + t}/SLE/v1/100m/constrained`);
      const out = join(root, `expected-${t}.f32`);
      await python(GDAL_READ, [join(file, `sle_pop_${2024 + t}_CN_100m_R2025A_v1.tif`), out]);
      expect(values).toEqual(new Float32Array((await readFile(out)).buffer.slice(0)));
    }
    expect(upstream.requests.every((r) => /bytes=\d+-\d+$/.test(r))).toBe(true);
  });

  it('refuses a missing country code and fails a year that is not published', async () => {
    await expect(open(['2024'], { iso3: undefined })).rejects.toMatchObject({ code: 'InvalidParameters' });
    await expect(open(['2031'])).rejects.toMatchObject({ code: 'PeriodUnavailable' });
  });
});
