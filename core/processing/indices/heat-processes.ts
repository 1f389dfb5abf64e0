/**
 * The heat and humidity processes: each reads single-band raster cubes with CF units, converts them to degC, %
 * and m s-1, and computes its formula (`heat.ts`) position by position, streaming chunk by chunk.
 */
import type { DataCube } from '../cube/cube.ts';
import type { Args, ProcessDefinition } from '../process.ts';
import { apparentTemperature, heatIndex, humidex, relativeHumidity, wetBulbTemperature } from './heat.ts';
import { pointwiseIndex, type IndexInput } from './inputs.ts';

const temperature = (cube: unknown): IndexInput => ({
  cube: cube as DataCube,
  parameter: 'temperature',
  quantity: 'temperature',
});
const dewpoint = (cube: unknown): IndexInput => ({
  cube: cube as DataCube,
  parameter: 'dewpoint',
  quantity: 'temperature',
});
const humidity = (cube: unknown): IndexInput => ({
  cube: cube as DataCube,
  parameter: 'relative_humidity',
  quantity: 'relativeHumidity',
});

export const heatProcesses: ProcessDefinition[] = [
  {
    id: 'relative_humidity_from_dewpoint',
    run: (args: Args) =>
      pointwiseIndex(
        'relative_humidity_from_dewpoint',
        [temperature(args.temperature), dewpoint(args.dewpoint)],
        'hurs',
        '%',
        ([t, td]) => relativeHumidity(t!, td!),
      ),
  },
  {
    id: 'heat_index',
    run: (args: Args) =>
      pointwiseIndex(
        'heat_index',
        [temperature(args.temperature), humidity(args.relative_humidity)],
        'heat_index',
        'degC',
        ([t, rh]) => heatIndex(t!, rh!),
      ),
  },
  {
    id: 'humidex',
    run: (args: Args) =>
      pointwiseIndex(
        'humidex',
        [temperature(args.temperature), dewpoint(args.dewpoint)],
        'humidex',
        'degC',
        ([t, td]) => humidex(t!, td!),
      ),
  },
  {
    id: 'wet_bulb_temperature',
    run: (args: Args) =>
      pointwiseIndex(
        'wet_bulb_temperature',
        [temperature(args.temperature), humidity(args.relative_humidity)],
        'wet_bulb_temperature',
        'degC',
        ([t, rh]) => wetBulbTemperature(t!, rh!),
      ),
  },
  {
    id: 'apparent_temperature',
    run: (args: Args) => {
      const inputs = [temperature(args.temperature), humidity(args.relative_humidity)];
      // Without a wind cube the air is taken as calm, as the description says.
      if (args.wind_speed !== null && args.wind_speed !== undefined)
        inputs.push({ cube: args.wind_speed as DataCube, parameter: 'wind_speed', quantity: 'windSpeed' });
      return pointwiseIndex('apparent_temperature', inputs, 'apparent_temperature', 'degC', ([t, rh, wind]) =>
        apparentTemperature(t!, rh!, wind ?? 0),
      );
    },
  },
];
