import { describe, expect, it } from 'vitest';
import { cubeOf, run, spatial, temporal, valuesOf } from '../../../test/support/cubes.ts';
import type { DataCube } from '../cube/cube.ts';
import {
  apparentTemperature,
  heatIndex,
  humidex,
  relativeHumidity,
  saturationVapourPressure,
  wetBulbTemperature,
} from './heat.ts';
import { extraterrestrialRadiation } from './pet.ts';

const fromF = (f: number) => ((f - 32) * 5) / 9;
const toF = (c: number) => (c * 9) / 5 + 32;

describe('heat and humidity formulas against the tables of their sources', () => {
  // The NWS heat index chart (weather.gov/safety/heat-index, "NOAA's National Weather Service Heat Index"), in degF,
  // rows of relative humidity, columns from 80 degF by 2 degF. The chart prints the regression rounded and without
  // the humid-air adjustment, so cells where that adjustment applies (RH > 85 %, T 80-87 degF) are left out.
  const CHART: [number, number[]][] = [
    [40, [80, 81, 83, 85, 88, 91, 94, 97, 101, 105, 109, 114, 119, 124, 130, 136]],
    [50, [81, 83, 85, 88, 91, 95, 99, 103, 108, 113, 118, 124, 131, 137]],
    [60, [82, 84, 88, 91, 95, 100, 105, 110, 116, 123, 129, 137]],
    [70, [83, 86, 90, 95, 100, 105, 112, 119, 126, 134]],
    [80, [84, 89, 94, 100, 106, 113, 121, 129]],
    [90, [NaN, NaN, NaN, NaN, 113, 122, 131]],
    [100, [NaN, NaN, NaN, NaN, 121, 132]],
  ];
  it.each(CHART)('heat index at RH %i %% matches the NWS chart to its rounding', (rh, row) => {
    row.forEach((published, k) => {
      if (Number.isNaN(published)) return;
      expect(Math.abs(toF(heatIndex(fromF(80 + 2 * k), rh)) - published), `${80 + 2 * k} degF`).toBeLessThanOrEqual(1);
    });
  });

  it('heat index below 80 degF is the simple formula, and the regression is adjusted for dry and humid air', () => {
    // 70 degF at 50 %: 0.5 (70 + 61 + 2.4 + 4.7) = 69.05 degF.
    expect(toF(heatIndex(fromF(70), 50))).toBeCloseTo(69.05, 9);
    // The Rothfusz regression as the NWS Weather Prediction Center's page prints it (T in degF, RH in %).
    const rothfusz = (t: number, rh: number) =>
      -42.379 +
      2.04901523 * t +
      10.14333127 * rh -
      0.22475541 * t * rh -
      0.00683783 * t * t -
      0.05481717 * rh * rh +
      0.00122874 * t * t * rh +
      0.00085282 * t * rh * rh -
      0.00000199 * t * t * rh * rh;
    // Dry: 100 degF at 10 % loses ((13 - 10) / 4) sqrt((17 - 5) / 17); humid: 82 degF at 95 % gains (1.0)(1.0).
    expect(toF(heatIndex(fromF(100), 10))).toBeCloseTo(rothfusz(100, 10) - 0.75 * Math.sqrt(12 / 17), 9);
    expect(toF(heatIndex(fromF(82), 95))).toBeCloseTo(rothfusz(82, 95) + 1, 9);
    expect(toF(heatIndex(fromF(95), 50))).toBeCloseTo(rothfusz(95, 50), 9);
  });

  it('humidex matches Environment Canada examples (30 degC: dewpoint 15 -> 34, 25 -> 42; 25 degC: 13 -> 28, 20 -> 33)', () => {
    expect(Math.round(humidex(30, 15))).toBe(34);
    expect(Math.round(humidex(30, 25))).toBe(42);
    expect(Math.round(humidex(25, 13))).toBe(28);
    expect(Math.round(humidex(25, 20))).toBe(33);
  });

  it("wet-bulb temperature matches Stull's 2011 worked example (20 degC, 50 % -> 13.7 degC)", () => {
    expect(wetBulbTemperature(20, 50)).toBeCloseTo(13.7, 1);
  });

  it('saturation vapour pressure and relative humidity match the WMO (Goff-Gratch) table within 0.3 %', () => {
    // WMO Technical Regulations / Smithsonian Meteorological Tables, over water: 10, 20, 30 degC.
    for (const [t, table] of [
      [10, 12.28],
      [20, 23.39],
      [30, 42.47],
    ] as const)
      expect(Math.abs(saturationVapourPressure(t) / table - 1), `${t} degC`).toBeLessThan(0.003);
    expect(relativeHumidity(20, 10)).toBeCloseTo((100 * 12.28) / 23.39, 0);
    expect(relativeHumidity(25, 25)).toBeCloseTo(100, 12);
  });

  it('apparent temperature follows the BoM formula: vapour pressure from the table, 0.7 degC less per m s-1 of wind', () => {
    // 30 degC at 50 %: e = 0.5 × 42.47 hPa (table), AT = 30 + 0.33 e - 4.
    expect(apparentTemperature(30, 50, 0)).toBeCloseTo(30 + 0.33 * 0.5 * 42.47 - 4, 1);
    expect(apparentTemperature(30, 50, 0) - apparentTemperature(30, 50, 5)).toBeCloseTo(3.5, 12);
  });

  it('extraterrestrial radiation matches FAO-56 example 8 (20 degS, 3 September: 32.2 MJ m-2 day-1)', () => {
    expect(extraterrestrialRadiation(-20, 246)).toBeCloseTo(32.2, 1);
  });
});

describe('heat and humidity processes over cubes with CF units', () => {
  const dims = (band: string) => [
    temporal(['2024-07-01T00:00:00Z', '2024-07-02T00:00:00Z']),
    { name: 'bands', type: 'bands' as const, labels: [band] },
    spatial('x', [0, 1, 2]),
  ];
  const kelvin = cubeOf(dims('t2m'), (i) => 300 + i, { units: { t2m: 'K' } });
  const dewpointC = cubeOf(dims('d2m'), (i) => 20 + i / 2, { units: { d2m: 'degC' } });
  const humidityFraction = cubeOf(dims('hurs'), (i) => 0.4 + i / 20, { units: { hurs: '1' } });

  it('converts K and fractions and computes every position, as band named after the index with its units', async () => {
    const result = (await run('heat_index', { temperature: kelvin, relative_humidity: humidityFraction })) as DataCube;
    expect(result.dimension('bands')!.labels).toEqual(['heat_index']);
    expect(result.metadata.units).toEqual({ heat_index: 'degC' });
    const values = await valuesOf(result);
    values.forEach((v, i) => expect(v).toBeCloseTo(heatIndex(300 + i - 273.15, 40 + 5 * i), 9));
  });

  it('relative humidity, humidex and wet-bulb temperature read their inputs the same way', async () => {
    const rh = await valuesOf(
      (await run('relative_humidity_from_dewpoint', { temperature: kelvin, dewpoint: dewpointC })) as DataCube,
    );
    rh.forEach((v, i) => expect(v).toBeCloseTo(relativeHumidity(300 + i - 273.15, 20 + i / 2), 9));
    const hx = await valuesOf((await run('humidex', { temperature: kelvin, dewpoint: dewpointC })) as DataCube);
    hx.forEach((v, i) => expect(v).toBeCloseTo(humidex(300 + i - 273.15, 20 + i / 2), 9));
    const tw = await valuesOf(
      (await run('wet_bulb_temperature', { temperature: kelvin, relative_humidity: humidityFraction })) as DataCube,
    );
    tw.forEach((v, i) => expect(v).toBeCloseTo(wetBulbTemperature(300 + i - 273.15, 40 + 5 * i), 9));
  });

  it('apparent temperature takes wind in km h-1, and calm air without it', async () => {
    const wind = cubeOf(dims('sfcWind'), () => 36, { units: { sfcWind: 'km h-1' } });
    const windy = await valuesOf(
      (await run('apparent_temperature', {
        temperature: kelvin,
        relative_humidity: humidityFraction,
        wind_speed: wind,
      })) as DataCube,
    );
    const calm = await valuesOf(
      (await run('apparent_temperature', { temperature: kelvin, relative_humidity: humidityFraction })) as DataCube,
    );
    windy.forEach((v, i) => expect(v).toBeCloseTo(apparentTemperature(300 + i - 273.15, 40 + 5 * i, 10), 9));
    calm.forEach((v, i) => expect(v - windy[i]!).toBeCloseTo(7, 9));
  });

  it('refuses a variable without units, naming it and the unit expected', async () => {
    const bare = cubeOf(dims('tas'), () => 25);
    await expect(run('heat_index', { temperature: bare, relative_humidity: humidityFraction })).rejects.toMatchObject({
      status: 400,
      code: 'ProcessParameterInvalid',
      message: expect.stringMatching(/'temperature'.*variable 'tas' has no units; expected temperature in 'degC'/),
    });
  });

  it('refuses a variable whose units are of another quantity', async () => {
    const rain = cubeOf(dims('pr'), () => 3, { units: { pr: 'mm day-1' } });
    await expect(run('humidex', { temperature: kelvin, dewpoint: rain })).rejects.toMatchObject({
      status: 400,
      code: 'ProcessParameterInvalid',
      message: expect.stringMatching(/'dewpoint'.*variable 'pr' has units 'mm day-1'; expected temperature in 'degC'/),
    });
  });

  it('sums degree days above and below the base per month from tmin and tmax', async () => {
    const days = Array.from({ length: 45 }, (_, d) => new Date(Date.UTC(2024, 0, 1 + d)).toISOString());
    const band = (name: string) => [
      temporal(days),
      { name: 'bands', type: 'bands' as const, labels: [name] },
      spatial('x', [0]),
    ];
    // Mean temperature of day d is 5 + d / 2 degC (tmin 2 + d / 2, tmax 8 + d / 2), in K for tmax.
    const tmin = cubeOf(band('tasmin'), (d) => 2 + d / 2, { units: { tasmin: 'degC' } });
    const tmax = cubeOf(band('tasmax'), (d) => 273.15 + 8 + d / 2, { units: { tasmax: 'K' } });
    const expected = (f: (mean: number) => number, from: number, to: number) => {
      let sum = 0;
      for (let d = from; d < to; d++) sum += f(5 + d / 2);
      return sum;
    };
    const gdd = (await run('growing_degree_days', { tmin, tmax, base: 10, period: 'month' })) as DataCube;
    expect(gdd.dimension('t')!.labels).toEqual(['2024-01', '2024-02']);
    expect(gdd.metadata.units).toEqual({ gdd: 'K d' });
    const [jan, feb] = await valuesOf(gdd);
    expect(jan).toBeCloseTo(
      expected((m) => Math.max(0, m - 10), 0, 31),
      9,
    );
    expect(feb).toBeCloseTo(
      expected((m) => Math.max(0, m - 10), 31, 45),
      9,
    );
    const hdd = await valuesOf(
      (await run('heating_degree_days', { tmin, tmax, base: 18, period: 'year' })) as DataCube,
    );
    expect(hdd).toHaveLength(1);
    expect(hdd[0]).toBeCloseTo(
      expected((m) => Math.max(0, 18 - m), 0, 45),
      9,
    );
    const cdd = await valuesOf(
      (await run('cooling_degree_days', { tmin, tmax, base: 18, period: 'year' })) as DataCube,
    );
    expect(cdd[0]).toBeCloseTo(
      expected((m) => Math.max(0, m - 18), 0, 45),
      9,
    );
  });
});
