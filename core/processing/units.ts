/**
 * CF units of the climate indices' inputs: one table of the unit spellings each quantity accepts, each with the
 * affine conversion to the quantity's working unit (`value * scale + offset`). An index reads the units a cube
 * carries for its band (`CubeMetadata.units`, from the store's CF `units` attribute) and converts; a band without
 * units, or with units of another quantity, is refused with 400 `ProcessParameterInvalid` naming the variable and
 * the unit expected, so that a number is never read in the wrong unit.
 */
import type { DataCube } from './cube/cube.ts';
import { invalidArgument } from './errors.ts';

export interface Conversion {
  readonly scale: number;
  readonly offset: number;
}

const SAME = { scale: 1, offset: 0 };
const KELVIN = { scale: 1, offset: -273.15 };
const FAHRENHEIT = { scale: 5 / 9, offset: (-32 * 5) / 9 };
/** Per second to per day. */
const PER_SECOND = { scale: 86_400, offset: 0 };

/** The quantities the indices read, each in its working unit, and the spellings (CF/UDUNITS) that convert to it. */
export const QUANTITIES = {
  temperature: {
    working: 'degC',
    units: {
      degC: SAME,
      deg_C: SAME,
      celsius: SAME,
      '°C': SAME,
      K: KELVIN,
      kelvin: KELVIN,
      degF: FAHRENHEIT,
      fahrenheit: FAHRENHEIT,
      '°F': FAHRENHEIT,
    },
  },
  precipitation: {
    working: 'mm day-1',
    units: {
      'mm day-1': SAME,
      'mm d-1': SAME,
      'mm/day': SAME,
      'mm/d': SAME,
      'kg m-2 d-1': SAME,
      // 1 kg of water over 1 m² is 1 mm deep.
      'kg m-2 s-1': PER_SECOND,
      'mm s-1': PER_SECOND,
      'mm/s': PER_SECOND,
    },
  },
  pressure: {
    working: 'hPa',
    units: {
      hPa: SAME,
      mbar: SAME,
      Pa: { scale: 0.01, offset: 0 },
      kPa: { scale: 10, offset: 0 },
    },
  },
  windSpeed: {
    working: 'm s-1',
    units: {
      'm s-1': SAME,
      'm/s': SAME,
      'km h-1': { scale: 1 / 3.6, offset: 0 },
      'km/h': { scale: 1 / 3.6, offset: 0 },
    },
  },
  relativeHumidity: {
    working: '%',
    units: {
      '%': SAME,
      percent: SAME,
      '1': { scale: 100, offset: 0 },
    },
  },
} as const satisfies Record<string, { working: string; units: Record<string, Conversion> }>;

export type Quantity = keyof typeof QUANTITIES;

/** Units in the spelling the table uses: `mm.day-1` and `mm day^-1` are UDUNITS spellings of `mm day-1`. */
function normalized(units: string): string {
  return units.trim().replace(/\s+/g, ' ').replace(/\./g, ' ').replace(/\^/g, '');
}

/** The conversion of `units` to the working unit of `quantity`, or undefined when they are not of that quantity. */
export function conversionOf(units: string, quantity: Quantity): Conversion | undefined {
  const table: Record<string, Conversion> = QUANTITIES[quantity].units;
  return table[normalized(units)];
}

/** Converts `values` in place by `conversion` (from `conversionOf`). */
export function convertInPlace(values: { [i: number]: number; length: number }, conversion: Conversion): void {
  if (conversion.scale === 1 && conversion.offset === 0) return;
  for (let i = 0; i < values.length; i++) values[i] = values[i]! * conversion.scale + conversion.offset;
}

/**
 * The single band of `cube` (a parameter of `process`) and the conversion of its CF units to the working unit of
 * `quantity`; 400 ProcessParameterInvalid when the cube has several bands, or its band no units or other units.
 */
export function bandUnits(
  cube: DataCube,
  quantity: Quantity,
  process: string,
  parameter: string,
): { band: string; conversion: Conversion } {
  const bands = cube.dimensions.find((d) => d.type === 'bands');
  if (!bands || bands.labels.length !== 1)
    throw invalidArgument(process, parameter, 'the data cube must have a bands dimension with exactly one band');
  const band = String(bands.labels[0]);
  const { working, units: accepted } = QUANTITIES[quantity];
  const expected = `expected ${quantity} in '${working}' or a unit convertible to it (${Object.keys(accepted)
    .map((u) => `'${u}'`)
    .join(', ')})`;
  const units = cube.metadata.units?.[band];
  if (units === undefined) throw invalidArgument(process, parameter, `variable '${band}' has no units; ${expected}`);
  const conversion = conversionOf(units, quantity);
  if (!conversion) throw invalidArgument(process, parameter, `variable '${band}' has units '${units}'; ${expected}`);
  return { band, conversion };
}
