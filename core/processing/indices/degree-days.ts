/**
 * Growing, heating and cooling degree days: per month or year, the sum over its days of how far the day's mean
 * temperature ((tmin + tmax) / 2, in degC) lies above (growing, cooling) or below (heating) a base temperature.
 * Streams the daily cubes chunk by chunk into one row of sums per period.
 */
import type { DataCube } from '../cube/cube.ts';
import { memoryCube } from '../cube/memory.ts';
import { readRegion } from '../cube/read.ts';
import { invalidArgument } from '../errors.ts';
import type { Args, ProcessContext, ProcessDefinition } from '../process.ts';
import { labelInstants } from '../processes/cube/filters.ts';
import { temporalAxis } from '../processes/cube/helpers.ts';
import { periodLabel, periodOrdinal, type Period } from '../processes/cube/periods.ts';
import { alignedInputs, resultMetadata } from './inputs.ts';
import { cubeOrder, timeLayout, timeMajor } from './monthly.ts';

type Kind = 'growing' | 'heating' | 'cooling';

// A nodata day gives NaN, so its period is nodata.
const above = (mean: number, base: number) => Math.max(0, mean - base);
const below = (mean: number, base: number) => Math.max(0, base - mean);
const DEGREES: Record<Kind, (mean: number, base: number) => number> = {
  growing: above,
  cooling: above,
  heating: below,
};

function degreeDays(kind: Kind, process: string, band: string) {
  return async ({ tmin, tmax, base, period }: Args, context: ProcessContext): Promise<DataCube> => {
    const { grid, cubes, convert } = alignedInputs(process, [
      { cube: tmin as DataCube, parameter: 'tmin', quantity: 'temperature' },
      { cube: tmax as DataCube, parameter: 'tmax', quantity: 'temperature' },
    ]);
    const axis = temporalAxis(grid, null);
    const instants = labelInstants(grid.dimensions[axis]!.labels);
    if (instants.some(Number.isNaN)) throw invalidArgument(process, 'tmin', 'the temporal labels are not all dates');
    const ordinals = instants.map((t) => periodOrdinal(period as Period, t));
    const first = ordinals.reduce((a, b) => Math.min(a, b), Infinity);
    const count = ordinals.length === 0 ? 0 : ordinals.reduce((a, b) => Math.max(a, b), -Infinity) - first + 1;
    const layout = timeLayout(grid.shape, axis);
    const sums = new Float64Array(count * layout.cells);
    const degrees = DEGREES[kind];
    const threshold = Number(base);
    // One temporal slab of chunks at a time: memory stays near one chunk row of the inputs.
    const step = grid.metadata.chunkShape[axis]!;
    for (let start = 0; start < layout.times; start += step) {
      const length = Math.min(step, layout.times - start);
      const regionStart = grid.shape.map((_, i) => (i === axis ? start : 0));
      const regionShape = grid.shape.map((n, i) => (i === axis ? length : n));
      const [low, high] = await Promise.all(
        cubes.map(async (cube, k) => {
          const values = Float64Array.from(await readRegion(cube, regionStart, regionShape, context.signal));
          convert[k]!(values);
          return timeMajor(values, timeLayout(regionShape, axis));
        }),
      );
      for (let t = 0; t < length; t++) {
        const row = (ordinals[start + t]! - first) * layout.cells;
        for (let c = 0; c < layout.cells; c++) {
          const i = t * layout.cells + c;
          sums[row + c]! += degrees((low![i]! + high![i]!) / 2, threshold);
        }
      }
    }
    const metadata = resultMetadata(grid.metadata, band, 'K d');
    const labels = Array.from({ length: count }, (_, k) => periodLabel(period as Period, first + k));
    return memoryCube({
      dimensions: metadata.dimensions.map((d, i) => (i === axis ? { ...d, labels } : d)),
      data: cubeOrder(sums, layout, count),
      units: metadata.units,
    });
  };
}

export const degreeDayProcesses: ProcessDefinition[] = [
  { id: 'growing_degree_days', run: degreeDays('growing', 'growing_degree_days', 'gdd') },
  { id: 'heating_degree_days', run: degreeDays('heating', 'heating_degree_days', 'hdd') },
  { id: 'cooling_degree_days', run: degreeDays('cooling', 'cooling_degree_days', 'cdd') },
];
