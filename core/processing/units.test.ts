import { describe, expect, it } from 'vitest';
import { cubeOf, run, spatial, temporal } from '../../test/support/cubes.ts';
import type { DataCube } from './cube/cube.ts';
import { conversionOf, convertInPlace, type Quantity } from './units.ts';

describe('the unit table of the climate indices', () => {
  it.each([
    ['temperature', 'K', 273.15, 0],
    ['temperature', 'degF', 212, 100],
    ['temperature', 'degC', 21.5, 21.5],
    ['precipitation', 'kg m-2 s-1', 1 / 86_400, 1],
    ['precipitation', 'mm.day-1', 4, 4],
    ['precipitation', 'mm d-1', 4, 4],
    ['pressure', 'Pa', 101_325, 1013.25],
    ['pressure', 'kPa', 101.325, 1013.25],
    ['windSpeed', 'km h-1', 36, 10],
    ['relativeHumidity', '1', 0.5, 50],
  ] as [Quantity, string, number, number][])(
    'reads %s in %s: %d is %d in the working unit',
    (quantity, units, value, working) => {
      const values = [value];
      convertInPlace(values, conversionOf(units, quantity)!);
      expect(values[0]).toBeCloseTo(working, 9);
    },
  );

  it('knows no conversion between quantities', () => {
    expect(conversionOf('K', 'precipitation')).toBeUndefined();
    expect(conversionOf('mm day-1', 'temperature')).toBeUndefined();
    expect(conversionOf('hPa', 'relativeHumidity')).toBeUndefined();
  });
});

describe('units through processes', () => {
  /** Two days of one cell, band `band` holding `value` in `units`. */
  const oneBand = (band: string, value: number, units: string) =>
    cubeOf(
      [
        temporal(['2024-07-01T00:00:00Z', '2024-07-02T00:00:00Z']),
        { name: 'bands', type: 'bands', labels: [band] },
        spatial('x', [0]),
      ],
      () => value,
      { units: { [band]: units } },
    );
  const cube = oneBand('tas', 300, 'K');
  const humidity = oneBand('hurs', 50, '%');

  it('survive processes that keep the values, so an index still reads them', async () => {
    const filtered = (await run('filter_temporal', { data: cube, extent: ['2024-07-01', '2024-07-02'] })) as DataCube;
    expect(filtered.metadata.units).toEqual({ tas: 'K' });
    await expect(run('heat_index', { temperature: filtered, relative_humidity: humidity })).resolves.toBeDefined();
  });

  it('are dropped by a callback that computes new values, and the index then refuses the cube', async () => {
    const scaled = (await run('apply', {
      data: cube,
      process: {
        process_graph: {
          m: { process_id: 'multiply', arguments: { x: { from_parameter: 'x' }, y: 2 }, result: true },
        },
      },
    })) as DataCube;
    expect(scaled.metadata.units).toBeUndefined();
    await expect(run('heat_index', { temperature: scaled, relative_humidity: humidity })).rejects.toMatchObject({
      code: 'ProcessParameterInvalid',
      message: expect.stringMatching(/variable 'tas' has no units/),
    });
  });
});
