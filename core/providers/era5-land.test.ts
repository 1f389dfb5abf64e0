import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { python } from '../../test/support/python.ts';
import { startUpstream, type Upstream } from '../../test/support/upstream.ts';
import { parsePeriod } from '../periods/index.ts';
import { era5LandProvider } from './era5-land.ts';

const MAKE_STORE = join(import.meta.dirname, '../../test/fixtures/providers/make-era5-zarr.py');
const credentials = { username: 'edh', password: 's3cret-token' };

/** xarray's reading of the same window, rotated and converted: the independent expectation. */
const XARRAY_WINDOW = `
import json, sys
import numpy as np, xarray as xr
store, variable, time, xmin, ymin, xmax, ymax, out = sys.argv[1:9]
ds = xr.open_zarr(store, consolidated=True)
da = ds[variable].sel(valid_time=np.datetime64(time))
da = da.assign_coords(longitude=np.round(((da.longitude + 180) % 360) - 180, 6)).sortby('longitude')
da = da.sel(latitude=slice(float(ymax), float(ymin)), longitude=slice(float(xmin), float(xmax)))
units = ds[variable].attrs['units']
values = da.values.astype('float64')
values = values - 273.15 if units == 'K' else values * 1000
values.astype('<f4').tofile(out)
print(json.dumps({"shape": list(da.shape), "lon0": float(da.longitude[0]), "lat0": float(da.latitude[0])}))
`;

describe('era5-land provider against a local remote Zarr store with basic auth', () => {
  let root: string;
  let upstream: Upstream;
  const open = (
    bbox: [number, number, number, number],
    extra: Record<string, unknown> = {},
    auth: typeof credentials | null = credentials,
  ) =>
    era5LandProvider.open({
      parameters: { storeUrl: `${upstream.url}/era5-land.zarr`, backoffMs: 5, ...extra },
      bbox,
      signal: new AbortController().signal,
      ...(auth && { credentials: auth }),
    });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-era5-'));
    await python(await readFile(MAKE_STORE, 'utf8'), [
      join(root, 'era5-land.zarr'),
      '2024-01-01T00',
      '48',
      '10.5',
      '6.5',
    ]);
    upstream = await startUpstream(root, { user: credentials.username, password: credentials.password });
  }, 60_000);
  afterAll(async () => {
    await upstream?.close();
    await rm(root, { recursive: true, force: true });
  });

  const expected = async (variable: string, time: string, bbox: number[]) => {
    const out = join(root, `${variable}-${time}.f32`);
    const view = await python<{ shape: number[]; lon0: number; lat0: number }>(XARRAY_WINDOW, [
      join(root, 'era5-land.zarr'),
      variable,
      time,
      ...bbox.map(String),
      out,
    ]);
    return { ...view, values: new Float32Array((await readFile(out)).buffer.slice(0)) };
  };

  it('reads the extent with longitudes rotated, north-up, in degrees Celsius', async () => {
    const bbox: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];
    const session = await open(bbox);
    const values = await session.read(parsePeriod('hourly', '2024-01-01T13'));
    const want = await expected('t2m', '2024-01-01T13:00', bbox);
    expect([session.grid.lat.length, session.grid.lon.length]).toEqual(want.shape);
    expect(session.grid.lon[0]).toBeCloseTo(want.lon0, 9);
    expect(session.grid.lat[0]).toBeCloseTo(want.lat0, 9);
    expect(values.length).toBe(want.values.length);
    want.values.forEach((v, i) => expect(values[i]).toBeCloseTo(v, 3));
    expect(Math.max(...values)).toBeLessThan(40);
  });

  it('reads an extent across the 0 meridian as two runs of columns, and precipitation in millimetres', async () => {
    const bbox: [number, number, number, number] = [-2, 7, 2, 9];
    const session = await open(bbox, { variable: 'tp' });
    const values = await session.read(parsePeriod('hourly', '2024-01-02T05'));
    const want = await expected('tp', '2024-01-02T05:00', bbox);
    expect(session.grid.lon[0]).toBeCloseTo(-2, 9);
    expect(session.grid.lon[session.grid.lon.length - 1]).toBeCloseTo(2, 9);
    expect([session.grid.lat.length, session.grid.lon.length]).toEqual(want.shape);
    want.values.forEach((v, i) => expect(values[i]).toBeCloseTo(v, 4));
  });

  it('fails with AuthenticationFailed without credentials, and PeriodUnavailable for an hour the store lacks', async () => {
    await expect(open([-13.5, 6.9, -10.2, 10], {}, null)).rejects.toMatchObject({
      code: 'AuthenticationFailed',
    });
    const session = await open([-13.5, 6.9, -10.2, 10]);
    await expect(session.read(parsePeriod('hourly', '2024-01-03T00'))).rejects.toMatchObject({
      code: 'PeriodUnavailable',
    });
  });
});
