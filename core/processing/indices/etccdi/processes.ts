/**
 * The ETCCDI indices as openEO processes, one per index (`etccdi_fd`, ..., `etccdi_prcptot`): each takes daily
 * cubes and returns, lazily, a cube whose temporal dimension holds the index's periods.
 */
import { DataCube, spatialAxes } from '../../cube/cube.ts';
import { sameLabels } from '../../cube/dimension.ts';
import { invalidArgument } from '../../errors.ts';
import type { Args, ProcessDefinition } from '../../process.ts';
import { labelInstants } from '../../processes/cube/filters.ts';
import { temporalAxis } from '../../processes/cube/helpers.ts';
import { bandUnits, type Quantity } from '../../units.ts';
import { WGS84, transformBetween } from '../../values/crs.ts';
import { DAY_MS, calendarOf, periodsOf, type Frequency } from './calendar.ts';
import { ETCCDI_INDICES, type EtccdiIndex, type Variable } from './catalogue.ts';
import {
  EtccdiSource,
  LONGEST_YEAR,
  MAX_BLOCK_VALUES,
  yearsHeld,
  type IndexPlan,
  type PlannedInput,
} from './source.ts';

const QUANTITY_OF: Readonly<Record<Variable, Quantity>> = {
  tmin: 'temperature',
  tmax: 'temperature',
  precipitation: 'precipitation',
};

/**
 * The input cube of each variable, read in the working unit of its quantity (degC, mm day-1); 400 when a cube has
 * no single band with units of that quantity, so that a value is never compared with a threshold in another unit.
 */
function plannedInputs(index: EtccdiIndex, args: Args): Partial<Record<Variable, PlannedInput>> {
  return Object.fromEntries(
    Object.entries(index.inputs).map(([parameter, variable]) => {
      const cube = args[parameter] as DataCube;
      const { conversion } = bandUnits(cube, QUANTITY_OF[variable], index.id, parameter);
      return [variable, { cube, conversion }];
    }),
  );
}

function indexCube(index: EtccdiIndex, args: Args): DataCube {
  const entries = Object.entries(index.inputs);
  const [firstParameter] = entries[0]!;
  const first = args[firstParameter] as DataCube;
  const inputs = plannedInputs(index, args);
  const axis = temporalAxis(first, null);
  for (const [parameter] of entries.slice(1)) {
    const other = args[parameter] as DataCube;
    const same =
      other.dimensions.length === first.dimensions.length &&
      other.dimensions.every(
        // Bands are named after their variables (tasmin, tasmax), so only other dimensions' labels must match.
        (d, i) =>
          d.name === first.dimensions[i]!.name &&
          (d.type === 'bands' || sameLabels(d.labels, first.dimensions[i]!.labels)),
      );
    if (!same)
      throw invalidArgument(index.id, parameter, `its dimensions and labels differ from those of '${firstParameter}'`);
  }
  const days = dailyPositions(index.id, firstParameter, labelInstants(first.dimensions[axis]!.labels));
  // An annual-only index has no `frequency` parameter (its description says so, and the parser refuses one).
  const frequency = args.frequency === undefined ? 'year' : (args.frequency as Frequency);
  const calendar = calendarOf(days[0]!, days[days.length - 1]!);
  const periods = periodsOf(calendar, frequency, days[0]!, days[days.length - 1]!);
  const plan: IndexPlan = {
    index,
    inputs,
    axis,
    frequency,
    calendar,
    periods,
    dayOfPosition: Int32Array.from(days, (d) => d - calendar.firstDay),
    ...(index.threshold ? { threshold: args.threshold as number } : {}),
    ...(index.percentile ? { base: basePeriod(index, args.base_period, calendar) } : {}),
    ...(index.id === 'etccdi_gsl' ? { south: hemisphere(index, first, axis) } : {}),
  };
  const dimensions = first.dimensions.map((d, i) => (i === axis ? { ...d, labels: periods.labels } : d));
  const chunkShape = blockShape(
    first.metadata.chunkShape.map((c, i) => (i === axis ? periods.count : c)),
    axis,
    // An index computed in runs of years holds a year at a time or more, and the next when it reads ahead.
    index.runs ? Math.min(calendar.days, yearsHeld(index.runs) * LONGEST_YEAR) : calendar.days,
  );
  const band = dimensions.find((d) => d.type === 'bands')!.labels[0]!;
  return new DataCube(
    new EtccdiSource(plan, {
      dimensions,
      dtype: 'float64',
      cellType: 'number',
      chunkShape,
      units: { [String(band)]: index.unit },
    }),
  );
}

/** The days (since the epoch) of the temporal labels, refused unless they are distinct days in order. */
function dailyPositions(process: string, parameter: string, instants: number[]): number[] {
  if (instants.length === 0) throw invalidArgument(process, parameter, 'the temporal dimension has no labels');
  if (instants.some((t) => Number.isNaN(t)))
    throw invalidArgument(process, parameter, 'the labels of the temporal dimension are not all dates');
  const days = instants.map((t) => Math.floor(t / DAY_MS));
  for (let i = 1; i < days.length; i++)
    if (!(days[i]! > days[i - 1]!))
      throw invalidArgument(
        process,
        parameter,
        `not a daily series: ${days[i]! === days[i - 1]! ? 'two labels on one day' : 'labels out of order'}`,
      );
  return days;
}

function basePeriod(index: EtccdiIndex, value: unknown, calendar: ReturnType<typeof calendarOf>) {
  const [first, last] = value as [number, number];
  if (!(last > first))
    throw invalidArgument(index.id, 'base_period', 'the bootstrap needs a base period of at least two years');
  const [y0, y1] = [calendar.year[0]!, calendar.year[calendar.days - 1]!];
  if (first < y0 || last > y1)
    throw invalidArgument(index.id, 'base_period', `${first}-${last} is not within the data's years ${y0}-${y1}`);
  return { first, last };
}

/** Whether each cell lies south of the equator, from its coordinates in the cube's reference system. */
function hemisphere(index: EtccdiIndex, cube: DataCube, axis: number): (position: readonly number[]) => boolean {
  const { x, y } = spatialAxes(cube);
  const [xd, yd] = [cube.dimensions[x]!, cube.dimensions[y]!];
  const toWgs84 = transformBetween(yd.crs, WGS84);
  const [xi, yi] = [x, y].map((a) => (a > axis ? a - 1 : a)) as [number, number];
  return (position) => {
    const [cx, cy] = [Number(xd.labels[position[xi]!]), Number(yd.labels[position[yi]!])];
    const latitude = toWgs84 ? toWgs84(cx, cy)[1] : cy;
    if (Number.isNaN(latitude)) throw invalidArgument(index.id, 'tmin', 'the latitude of a cell cannot be found');
    return latitude < 0;
  };
}

/**
 * The chunk shape, its other dimensions divided (largest first) until a block's series fits `MAX_BLOCK_VALUES`:
 * into the fewest equal parts that fit, since each block decodes every stored chunk its cells touch again.
 */
function blockShape(shape: number[], axis: number, days: number): number[] {
  const out = [...shape];
  const cells = () => out.reduce((n, c, i) => (i === axis ? n : n * c), 1);
  while (days * cells() > MAX_BLOCK_VALUES) {
    let largest = -1;
    out.forEach((c, i) => {
      if (i !== axis && c > 1 && (largest < 0 || c > out[largest]!)) largest = i;
    });
    if (largest < 0) break;
    const size = out[largest]!;
    const fits = Math.max(1, Math.floor(MAX_BLOCK_VALUES / (days * (cells() / size))));
    out[largest] = Math.ceil(size / Math.ceil(size / fits));
  }
  return out;
}

export const etccdiProcesses: ProcessDefinition[] = ETCCDI_INDICES.map((index) => ({
  id: index.id,
  run: (args: Args) => indexCube(index, args),
}));
