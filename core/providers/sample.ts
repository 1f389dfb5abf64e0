import { RunError } from '../runs/errors.ts';
import { parameter } from './options.ts';
import { gridCovering } from '../stores/raster-grid.ts';
import type { RasterProvider } from './raster.ts';
import { hash } from './sample-hash.ts';
import { sampleWeather, sampleWeatherVariables, type SampleWeatherVariable } from './sample-weather.ts';

/**
 * The offline `sample` provider: a deterministic synthetic daily field over the requested extent, so that a
 * laptop or a demo has real stored data with no network. Values lie in [0, 100): a seasonal wave that moves
 * with longitude and latitude, plus per-cell noise from a hash of (seed, cell, day). Same inputs, same values.
 * The parameter `variable` asks for synthetic weather instead (sample-weather.ts): `precipitation` (mm day-1),
 * `tmin` or `tmax` (degC); sources with the same seed and resolution describe the same weather.
 */

/** The sample value of the cell at (lon, lat), row j and column i, on the day `day` (days since 1970-01-01). */
export function sampleValue(seed: number, lon: number, lat: number, j: number, i: number, day: number): number {
  const season = Math.sin((2 * Math.PI * day) / 365.25 + lon * 0.5) * Math.cos(lat * 0.15);
  const value = 50 + 35 * season + 10 * (hash(seed, j, i, day) - 0.5);
  return Math.min(99.99, Math.max(0, value));
}

export const sampleProvider: RasterProvider = {
  name: 'sample',
  // Synthetic values exist for any day, today's included.
  availability: () => ({ rule: 'today' }),
  open: async ({ parameters, bbox }) => {
    const seed = parameter('sample', parameters, 'seed', 'number') ?? 42;
    const resolution = parameter('sample', parameters, 'resolution', 'number') ?? 0.05;
    if (resolution <= 0 || resolution > 10)
      throw new RunError('InvalidParameters', 'sample provider: resolution must be in (0, 10] degrees');
    const variable = parameter('sample', parameters, 'variable', 'string') ?? 'value';
    if (variable !== 'value' && !sampleWeatherVariables.includes(variable as SampleWeatherVariable))
      throw new RunError(
        'InvalidParameters',
        `sample provider: variable must be one of value, ${sampleWeatherVariables.join(', ')}; got ${variable}`,
      );
    const weather = sampleWeather(seed);
    const valueOf =
      variable === 'value'
        ? sampleValue
        : (_seed: number, lon: number, lat: number, j: number, i: number, day: number) =>
            weather({ lon, lat, j, i, day })[variable as SampleWeatherVariable];
    const grid = gridCovering(bbox, resolution);
    return {
      grid,
      read: async (period) => {
        const day = Math.floor(period.start.getTime() / 86_400_000);
        const values = new Float32Array(grid.lat.length * grid.lon.length);
        for (let j = 0; j < grid.lat.length; j++)
          for (let i = 0; i < grid.lon.length; i++)
            values[j * grid.lon.length + i] = valueOf(seed, grid.lon[i]!, grid.lat[j]!, j, i, day);
        return values;
      },
    };
  },
};
