import { RunError } from '../runs/errors.ts';
import { httpOptions, parameter } from './options.ts';
import { authorizationHeader } from './http.ts';
import { cfTimesToMs } from './cf-time.ts';
import { RemoteZarrGroup } from './remote-zarr.ts';
import type { RasterProvider } from './raster.ts';

/** Earth Data Hub's ARCO Zarr of ERA5-Land (hourly, 0.1 degree, longitudes 0-360, latitudes descending). */
export const ERA5_LAND_URL = 'https://data.earthdatahub.destine.eu/era5/reanalysis-era5-land-no-antartica-v0.zarr';

/** Units the store holds and what datasets get: kelvin to degrees Celsius, metres of water to millimetres. */
const CONVERSIONS: Record<string, { units: string; convert: (v: number) => number }> = {
  K: { units: 'degC', convert: (v) => v - 273.15 },
  m: { units: 'mm', convert: (v) => v * 1000 },
};

const firstOf = (group: RemoteZarrGroup, names: string[], what: string) => {
  const name = names.find((n) => group.has(n));
  if (!name) throw new RunError('UnsupportedLayout', `the store has no ${what} coordinate (${names.join(', ')})`);
  return group.array(name);
};

/** Runs of consecutive indices, in the order given. */
function runs(indices: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const i of indices) {
    const last = out[out.length - 1];
    if (last && last[1] === i) last[1] = i + 1;
    else out.push([i, i + 1]);
  }
  return out;
}

/**
 * ERA5-Land hourly from a remote Zarr v2 store. Longitudes in 0..360 are rotated to -180..180 (an extent across
 * the 0 meridian reads two runs of columns), latitudes stay north-up, values are converted by their units
 * (K -> degC, m -> mm). HTTP basic auth comes from the worker's credentials (a Secret, never the run's input).
 * Parameters: `storeUrl`, `variable` (default `t2m`), and the HTTP knobs.
 */
export const era5LandProvider: RasterProvider = {
  name: 'era5-land',
  // ERA5-Land reaches the public stores about five days after real time.
  availability: () => ({ rule: 'lag-hours', hours: 120 }),
  open: async ({ parameters, bbox, signal, credentials }) => {
    const url = parameter('era5-land', parameters, 'storeUrl', 'string') ?? ERA5_LAND_URL;
    const variable = parameter('era5-land', parameters, 'variable', 'string') ?? 't2m';
    const http = {
      ...httpOptions('era5-land', parameters, signal),
      headers: credentials ? authorizationHeader(credentials) : undefined,
    };
    const group = await RemoteZarrGroup.open(url, http);
    const data = group.array(variable);
    const [timeArray, latArray, lonArray] = [
      firstOf(group, ['valid_time', 'time'], 'time'),
      firstOf(group, ['latitude', 'lat'], 'latitude'),
      firstOf(group, ['longitude', 'lon'], 'longitude'),
    ];
    if (data.dimensions.join() !== [timeArray.name, latArray.name, lonArray.name].join())
      throw new RunError('UnsupportedLayout', `${variable} must have dimensions (time, latitude, longitude)`);
    const whole = (array: typeof data) => group.read(array, [[0, array.shape[0]!]]);
    const [times, lats, lons] = await Promise.all([whole(timeArray), whole(latArray), whole(lonArray)]);
    const timeIndex = new Map(
      cfTimesToMs(times, timeArray.attributes.units, timeArray.attributes.calendar).map((ms, i) => [ms, i]),
    );
    // Rounded so that a grid point on the extent's edge (349.8 - 360) compares equal to it (-10.2).
    const rotated = Array.from(lons, (v) => Math.round((v > 180 ? v - 360 : v) * 1e9) / 1e9);
    const columns = rotated
      .map((lon, i) => ({ lon, i }))
      .filter(({ lon }) => lon >= bbox[0] && lon <= bbox[2])
      .sort((a, b) => a.lon - b.lon);
    const rows = Array.from(lats, (lat, j) => ({ lat, j }))
      .filter(({ lat }) => lat >= bbox[1] && lat <= bbox[3])
      .sort((a, b) => b.lat - a.lat);
    if (columns.length === 0 || rows.length === 0)
      throw new RunError('OutsideCoverage', `the extent ${bbox.join(',')} has no ERA5-Land grid point`);
    const rowIndices = rows.map((r) => r.j);
    const [y0, y1] = [Math.min(...rowIndices), Math.max(...rowIndices) + 1];
    if (y1 - y0 !== rows.length) throw new RunError('UnsupportedLayout', 'latitudes must be monotonic');
    // Rows come north first when latitudes descend in the store; flip them when they ascend.
    const flip = lats[y0]! < lats[y1 - 1]!;
    const columnRuns = runs(columns.map((c) => c.i));
    const conversion = CONVERSIONS[String(data.attributes.units)];
    return {
      grid: {
        lon: Float64Array.from(columns, (c) => c.lon),
        lat: Float64Array.from(rows, (r) => r.lat),
        resolution: Math.abs(lats[1]! - lats[0]!),
      },
      read: async (period) => {
        const t = timeIndex.get(period.start.getTime());
        if (t === undefined)
          throw new RunError('PeriodUnavailable', `${url} has no ${variable} for ${period.start.toISOString()}`);
        const parts = await Promise.all(
          columnRuns.map(([x0, x1]) =>
            group.read(data, [
              [t, t + 1],
              [y0, y1],
              [x0, x1],
            ]),
          ),
        );
        const width = columns.length;
        const plane = new Float32Array(rows.length * width);
        let x = 0;
        parts.forEach((part, p) => {
          const runWidth = columnRuns[p]![1] - columnRuns[p]![0];
          for (let r = 0; r < rows.length; r++) {
            const source = flip ? rows.length - 1 - r : r;
            for (let c = 0; c < runWidth; c++) {
              const v = part[source * runWidth + c]!;
              plane[r * width + x + c] = conversion ? conversion.convert(v) : v;
            }
          }
          x += runWidth;
        });
        return plane;
      },
    };
  },
};
