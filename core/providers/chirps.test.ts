import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { python } from '../../test/support/python.ts';
import { startUpstream, type Upstream } from '../../test/support/upstream.ts';
import { parsePeriod } from '../periods/index.ts';
import { chirpsProvider, chirpsUrl } from './chirps.ts';

const MAKE_COGS = join(import.meta.dirname, '../../test/fixtures/providers/make-cogs.py');
const LAYOUT = 'rnl/cogs/%Y/chirps-v3.0.rnl.%Y.%m.%d.cog';
const BBOX: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];

/** GDAL's reading of the same window of the fixture file: the independent expectation. */
const GDAL_WINDOW = `
import json, sys
import numpy as np
from osgeo import gdal
path, out = sys.argv[1], sys.argv[2]
xmin, ymin, xmax, ymax = map(float, sys.argv[3:7])
d = gdal.Open(path)
x0, res, _, y0, _, _ = d.GetGeoTransform()
xoff, yoff = round((xmin - x0) / res), round((y0 - ymax) / res)
w, h = round((xmax - xmin) / res), round((ymax - ymin) / res)
a = d.GetRasterBand(1).ReadAsArray(xoff, yoff, w, h).astype('<f4')
a[a == -9999] = np.nan
a.tofile(out)
print(json.dumps({"shape": [h, w]}))
`;

describe('chirps provider against a local CHC server', () => {
  let root: string;
  let upstream: Upstream;
  const open = (extra: Record<string, unknown> = {}) =>
    chirpsProvider.open({
      parameters: { baseUrl: `${upstream.url}/products/CHIRPS/v3.0/daily/final`, backoffMs: 5, ...extra },
      bbox: BBOX,
      signal: new AbortController().signal,
    });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-chirps-'));
    const base = join(root, 'products/CHIRPS/v3.0/daily/final');
    await python(await readFile(MAKE_COGS, 'utf8'), [
      base,
      LAYOUT,
      '2024-01-01',
      '2024-01-03',
      '-20',
      '20',
      '0.05',
      '400',
      '400',
    ]);
    upstream = await startUpstream(root);
  }, 60_000);
  afterAll(async () => {
    await upstream?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('builds the URL of one day in CHC layout', () => {
    expect(chirpsUrl('https://x/final', 'rnl', '2024-03-09')).toBe(
      'https://x/final/rnl/cogs/2024/chirps-v3.0.rnl.2024.03.09.cog',
    );
  });

  it('reads the window of the extent with range requests, equal to what GDAL reads, ocean as NaN', async () => {
    const session = await open();
    expect([session.grid.lat.length, session.grid.lon.length]).toEqual([62, 66]);
    upstream.requests.length = 0;
    const values = await session.read(parsePeriod('daily', '2024-01-02'));
    // The start of the file (header and directories) once, then the two tiles the extent crosses.
    expect(upstream.requests.map((r) => r.split(' ').pop())).toEqual([
      'bytes=0-16383',
      expect.stringMatching(/^bytes=\d+-\d+$/),
      expect.stringMatching(/^bytes=\d+-\d+$/),
    ]);

    const out = join(root, 'expected.f32');
    const file = join(root, 'products/CHIRPS/v3.0/daily/final/rnl/cogs/2024/chirps-v3.0.rnl.2024.01.02.cog');
    await python(GDAL_WINDOW, [file, out, ...BBOX.map(String)]);
    const expected = new Float32Array((await readFile(out)).buffer.slice(0));
    expect(values).toEqual(expected);
    expect(values.some(Number.isNaN)).toBe(true);
  });

  it('retries 5xx, hung connections and truncated bodies, then succeeds', async () => {
    const session = await open({ timeoutMs: 300 });
    const day = parsePeriod('daily', '2024-01-03');
    const clean = await session.read(day);
    upstream.fail('2024.01.03.cog', 'status-500', 'hang', 'truncate');
    upstream.requests.length = 0;
    const retried = await (await open({ timeoutMs: 300 })).read(day);
    expect(retried).toEqual(clean);
    expect(upstream.requests.length).toBeGreaterThan(3);
  });

  it('fails with a typed error for a day that is not published, and after its attempts for a server that stays down', async () => {
    const session = await open({ attempts: 2 });
    await expect(session.read(parsePeriod('daily', '2024-02-01'))).rejects.toMatchObject({
      code: 'PeriodUnavailable',
      message: expect.stringMatching(/chirps-v3\.0\.rnl\.2024\.02\.01\.cog is not published \(HTTP 404\)/),
    });
    upstream.fail('2024.01.01.cog', 'status-503', 'status-503');
    await expect(session.read(parsePeriod('daily', '2024-01-01'))).rejects.toMatchObject({
      code: 'UpstreamUnavailable',
      message: expect.stringMatching(/failed after 2 attempts: HTTP 503/),
    });
  });
});
