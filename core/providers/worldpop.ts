import { RunError } from '../runs/errors.ts';
import { openRemoteTiff } from './geotiff.ts';
import { readTiffWindow } from './tiff-window.ts';
import { httpOptions, parameter } from './options.ts';
import type { RasterProvider } from './raster.ts';

export const WORLDPOP_BASE_URL = 'https://data.worldpop.org/GIS/Population/Global_2015_2030';

export interface WorldPopLayout {
  base: string;
  release: string;
  iso3: string;
  version: string;
  resolution: string;
  constrained: boolean;
}

/**
 * One country and year of a WorldPop release:
 * `<base>/<release>/<year>/<ISO3>/<version>/<resolution>/<constrained|unconstrained>/
 *  <iso3>_pop_<year>_<CN|UC>_<resolution>_<release>_<version>.tif`.
 */
export function worldPopUrl(layout: WorldPopLayout, year: number): string {
  const { base, release, iso3, version, resolution, constrained } = layout;
  const kind = constrained ? 'constrained' : 'unconstrained';
  const file = `${iso3.toLowerCase()}_pop_${year}_${constrained ? 'CN' : 'UC'}_${resolution}_${release}_${version}.tif`;
  return `${base}/${release}/${year}/${iso3.toUpperCase()}/${version}/${resolution}/${kind}/${file}`;
}

/**
 * WorldPop yearly population counts: one GeoTIFF per country and year, of which the window of the extent is read
 * with range requests. The grid is the file's own (3 arc-seconds for the 100 m product), taken from the first
 * requested year. Parameters: `iso3` (required), `release` (`R2025A`), `version` (`v1`), `resolution` (`100m`),
 * `constrained` (true), `baseUrl`, and the HTTP knobs.
 */
export const worldPopProvider: RasterProvider = {
  name: 'worldpop',
  availability: (parameters) => ({
    rule: 'release-year',
    // WorldPop names releases after their year (R2025A); the template says how far the release reaches.
    year: Number(/^R(\d{4})/.exec(parameter('worldpop', parameters, 'release', 'string') ?? 'R2025A')?.[1] ?? NaN),
    offset: 0,
    future: false,
  }),
  open: async ({ parameters, bbox, signal, periods }) => {
    const iso3 = parameter('worldpop', parameters, 'iso3', 'string');
    if (!iso3 || !/^[A-Za-z]{3}$/.test(iso3))
      throw new RunError('InvalidParameters', 'worldpop provider: parameter iso3 must be a 3-letter country code');
    const constrained = parameters.constrained ?? true;
    if (typeof constrained !== 'boolean')
      throw new RunError('InvalidParameters', 'worldpop provider: parameter constrained must be a boolean');
    const layout: WorldPopLayout = {
      base: (parameter('worldpop', parameters, 'baseUrl', 'string') ?? WORLDPOP_BASE_URL).replace(/\/+$/, ''),
      release: parameter('worldpop', parameters, 'release', 'string') ?? 'R2025A',
      version: parameter('worldpop', parameters, 'version', 'string') ?? 'v1',
      resolution: parameter('worldpop', parameters, 'resolution', 'string') ?? '100m',
      iso3,
      constrained,
    };
    const http = httpOptions('worldpop', parameters, signal);
    const read = async (year: number) => readTiffWindow(await openRemoteTiff(worldPopUrl(layout, year), http), bbox);
    const first = periods?.[0];
    if (!first) throw new RunError('InvalidParameters', 'worldpop provider: no period requested');
    if (first.type !== 'yearly') throw new RunError('InvalidParameters', 'worldpop provides yearly periods');
    const opening = await read(first.start.getUTCFullYear());
    const { grid } = opening;
    let pending: typeof opening | undefined = opening;
    return {
      grid,
      read: async (period) => {
        const year = period.start.getUTCFullYear();
        if (pending && year === first.start.getUTCFullYear()) {
          const values = pending.values;
          pending = undefined;
          return values;
        }
        const window = await read(year);
        if (window.grid.lon.length !== grid.lon.length || window.grid.lat.length !== grid.lat.length)
          throw new RunError('UnsupportedLayout', `the ${year} raster has another grid than the first year`);
        return window.values;
      },
    };
  },
};
