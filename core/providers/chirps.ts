import { formatPeriod } from '../periods/index.ts';
import { RunError } from '../runs/errors.ts';
import { openRemoteTiff } from './geotiff.ts';
import { httpOptions, parameter } from './options.ts';
import { readTiffOnGrid } from './tiff-window.ts';
import { gridCovering } from '../stores/raster-grid.ts';
import type { RasterProvider } from './raster.ts';

/** Where CHC publishes CHIRPS v3.0 final daily COGs. */
export const CHIRPS_BASE_URL = 'https://data.chc.ucsb.edu/products/CHIRPS/v3.0/daily/final';
/** CHIRPS v3 is a 0.05 degree grid whose edges are multiples of 0.05. */
const RESOLUTION = 0.05;

/** The COG of one day: `<base>/<flavor>/cogs/<YYYY>/chirps-v3.0.<flavor>.<YYYY>.<MM>.<DD>.cog`. */
export function chirpsUrl(base: string, flavor: string, day: string): string {
  const [year, month, date] = day.split('-');
  return `${base}/${flavor}/cogs/${year}/chirps-v3.0.${flavor}.${year}.${month}.${date}.cog`;
}

/**
 * CHIRPS v3.0 daily precipitation (mm/day): each period is one global COG, of which only the tiles covering the
 * extent are fetched, with HTTP range requests. Ocean cells (-9999) become NaN.
 * Parameters: `baseUrl`, `flavor` (`rnl` by default), and the HTTP knobs of `httpOptions`.
 */
export const chirpsProvider: RasterProvider = {
  name: 'chirps',
  // CHC publishes the final product of a month around the 20th of the next one.
  availability: () => ({ rule: 'monthly-after-day', day: 20 }),
  open: async ({ parameters, bbox, signal }) => {
    const base = (parameter('chirps', parameters, 'baseUrl', 'string') ?? CHIRPS_BASE_URL).replace(/\/+$/, '');
    const flavor = parameter('chirps', parameters, 'flavor', 'string') ?? 'rnl';
    const http = httpOptions('chirps', parameters, signal);
    const grid = gridCovering(bbox, RESOLUTION);
    return {
      grid,
      read: async (period) => {
        if (period.type !== 'daily')
          throw new RunError('InvalidParameters', `chirps provides daily periods, not ${period.type}`);
        return readTiffOnGrid(await openRemoteTiff(chirpsUrl(base, flavor, formatPeriod(period)), http), grid, -9999);
      },
    };
  },
};
