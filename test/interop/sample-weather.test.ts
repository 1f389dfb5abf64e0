/**
 * The sample weather of `make run`, end to end in embedded mode: the example ingestions fill 2022-2024 of
 * sample-precipitation, sample-tmin and sample-tmax, and xarray reads each from /zarr with its CF units, plausible
 * values, tmin below tmax in every cell, and the provider's values (deterministic from one run to the next).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { parsePeriod } from '../../core/periods/index.ts';
import { sampleProvider } from '../../core/providers/sample.ts';
import { finishedSampleWeather, startEmbedded } from '../support/embedded.ts';
import { python } from '../support/python.ts';

const BBOX: [number, number, number, number] = [-13.5, 6.9, -10.2, 10];
const SOURCES = ['precipitation', 'tmin', 'tmax'] as const;

/** What xarray sees of the three stores, and figures numpy computes over the whole cubes. */
const XARRAY_READ = `
import json, sys
import numpy as np
import xarray as xr
url = sys.argv[1]
pr = xr.open_zarr(f'{url}/zarr/sample-precipitation/', consolidated=True)['pr']
tn = xr.open_zarr(f'{url}/zarr/sample-tmin/', consolidated=True)['tasmin']
tx = xr.open_zarr(f'{url}/zarr/sample-tmax/', consolidated=True)['tasmax']
wet = pr.values >= 1
day = str(sys.argv[2])
print(json.dumps({
  'units': [pr.attrs.get('units'), tn.attrs.get('units'), tx.attrs.get('units')],
  'shapes': [list(pr.shape), list(tn.shape), list(tx.shape)],
  'time': [str(pr['time'].values[0])[:10], str(pr['time'].values[-1])[:10]],
  'same_grid': bool(np.array_equal(pr['lat'], tx['lat']) and np.array_equal(pr['lon'], tn['lon'])),
  'min_pr': float(np.nanmin(pr.values)),
  'dry_share': float(1 - wet.mean()),
  'heavy_days_per_cell_year': float((pr.values >= 20).sum() / (pr.shape[1] * pr.shape[2] * 3)),
  'cells_tmin_not_below_tmax': int((tn.values >= tx.values).sum()),
  'nan': int(np.isnan(pr.values).sum() + np.isnan(tn.values).sum() + np.isnan(tx.values).sum()),
  'day': {
    'pr': np.asarray(pr.sel(time=day).values, dtype='<f4').ravel().tolist(),
    'tmin': np.asarray(tn.sel(time=day).values, dtype='<f4').ravel().tolist(),
    'tmax': np.asarray(tx.sel(time=day).values, dtype='<f4').ravel().tolist(),
  },
}))
`;

interface XarrayView {
  units: string[];
  shapes: number[][];
  time: string[];
  same_grid: boolean;
  min_pr: number;
  dry_share: number;
  heavy_days_per_cell_year: number;
  cells_tmin_not_below_tmax: number;
  nan: number;
  day: Record<'pr' | 'tmin' | 'tmax', number[]>;
}

const CHECKED_DAY = '2023-08-14';

let dataDir: string;
let running: RunningEmbedded;
let view: XarrayView;
let ingestionSeconds: number;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stratus-sample-weather-'));
  const started = performance.now();
  running = await startEmbedded(dataDir, { sampleWeather: true });
  for (const run of await finishedSampleWeather(running, SOURCES))
    expect(run.status?.phase, run.metadata.name).toBe('successful');
  ingestionSeconds = (performance.now() - started) / 1000;
  view = await python<XarrayView>(XARRAY_READ, [running.url, CHECKED_DAY], 120_000);
}, 300_000);

afterAll(async () => {
  await running?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the sample weather that make run ingests', () => {
  it('is served as three years of daily cubes on one grid, with CF units, as xarray reads them', () => {
    console.info(`sample weather: 3 × 1096 days ingested ${ingestionSeconds.toFixed(1)} s after the start`);
    expect(view.units).toEqual(['mm day-1', 'degC', 'degC']);
    expect(view.shapes).toEqual([
      [1096, 31, 33],
      [1096, 31, 33],
      [1096, 31, 33],
    ]);
    expect(view.time).toEqual(['2022-01-01', '2024-12-31']);
    expect(view.same_grid).toBe(true);
    expect(view.nan).toBe(0);
  });

  it('holds plausible values: no negative rain, mostly dry days, heavy-rain days, tmin below tmax everywhere', () => {
    expect(view.min_pr).toBeGreaterThanOrEqual(0);
    expect(view.dry_share).toBeGreaterThan(0.55);
    expect(view.dry_share).toBeLessThan(0.85);
    expect(view.heavy_days_per_cell_year).toBeGreaterThan(10);
    expect(view.cells_tmin_not_below_tmax).toBe(0);
  });

  it('stores what the provider generates, so another run stores the same values', async () => {
    const day = parsePeriod('daily', CHECKED_DAY);
    for (const [variable, key] of [
      ['precipitation', 'pr'],
      ['tmin', 'tmin'],
      ['tmax', 'tmax'],
    ] as const) {
      const provider = await sampleProvider.open({
        parameters: { variable, seed: 42, resolution: 0.1 },
        bbox: BBOX,
        signal: new AbortController().signal,
      });
      expect(view.day[key], variable).toEqual([...(await provider.read(day))]);
    }
  });
});
