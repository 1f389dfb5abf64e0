/**
 * The heat and humidity processes: each reads single-band raster cubes with CF units, converts them to degC, %
 * and m s-1, and computes its formula (`heat.ts`) position by position, streaming chunk by chunk.
 */
import type { DataCube } from '../cube/cube.ts';
import type { Args, ProcessDefinition } from '../process.ts';
import { apparentTemperature, heatIndex, humidex, relativeHumidity, wetBulbTemperature } from './heat.ts';
import type { Quantity } from '../units.ts';
import { pointwiseIndex } from './inputs.ts';

const INPUTS = {
  temperature: 'temperature',
  dewpoint: 'temperature',
  relative_humidity: 'relativeHumidity',
  wind_speed: 'windSpeed',
} as const satisfies Record<string, Quantity>;

type InputName = keyof typeof INPUTS;

/** A process computing `formula` of the cubes passed as `inputs` (null optional ones left out), as band `id`. */
function heatIndexProcess(
  id: string,
  inputs: readonly InputName[],
  units: string,
  formula: (values: readonly number[]) => number,
  band = id,
): ProcessDefinition {
  return {
    id,
    run: (args: Args) =>
      pointwiseIndex(
        id,
        inputs
          .filter((name) => args[name] !== null && args[name] !== undefined)
          .map((name) => ({ cube: args[name] as DataCube, parameter: name, quantity: INPUTS[name] })),
        band,
        units,
        formula,
      ),
  };
}

export const heatProcesses: ProcessDefinition[] = [
  heatIndexProcess(
    'relative_humidity_from_dewpoint',
    ['temperature', 'dewpoint'],
    '%',
    ([t, td]) => relativeHumidity(t!, td!),
    'hurs',
  ),
  heatIndexProcess('heat_index', ['temperature', 'relative_humidity'], 'degC', ([t, rh]) => heatIndex(t!, rh!)),
  heatIndexProcess('humidex', ['temperature', 'dewpoint'], 'degC', ([t, td]) => humidex(t!, td!)),
  heatIndexProcess('wet_bulb_temperature', ['temperature', 'relative_humidity'], 'degC', ([t, rh]) =>
    wetBulbTemperature(t!, rh!),
  ),
  // Without a wind cube the air is taken as calm, as the description says.
  heatIndexProcess(
    'apparent_temperature',
    ['temperature', 'relative_humidity', 'wind_speed'],
    'degC',
    ([t, rh, wind]) => apparentTemperature(t!, rh!, wind ?? 0),
  ),
];
