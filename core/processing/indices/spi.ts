/**
 * The standardized drought indices over monthly totals accumulated over `scale` months, fitted per cell and
 * calendar month over a calibration period: SPI (McKee et al. 1993) on precipitation with a maximum-likelihood
 * gamma and the probability of zero precipitation, and SPEI (Vicente-Serrano et al. 2010) on precipitation minus
 * Hargreaves PET with a log-logistic fitted by probability-weighted moments. Each turns the fitted probability into
 * the standard normal quantile, clamped to ±8.21 (the quantiles of the smallest probabilities a double holds
 * apart from 0 and 1).
 */
import type { DataCube } from '../cube/cube.ts';
import { type CubeMetadata } from '../cube/cube.ts';
import { spatialIndex } from '../cube/dimension.ts';
import { memoryCube } from '../cube/memory.ts';
import { materialize } from '../cube/read.ts';
import { ProcessingError, invalidArgument } from '../errors.ts';
import type { Args, ProcessContext, ProcessDefinition } from '../process.ts';
import { labelInstants } from '../processes/cube/filters.ts';
import { temporalAxis } from '../processes/cube/helpers.ts';
import { periodLabel } from '../processes/cube/periods.ts';
import { fitGamma, fitLogLogistic, gammaCdf, logLogisticCdf, normalQuantile } from './distributions.ts';
import { alignedInputs, resultMetadata, type IndexInput } from './inputs.ts';
import { cellOf, cubeOrder, monthlyTotals, timeLayout, timeMajor, type MonthlySeries } from './monthly.ts';
import { extraterrestrialRadiation, hargreaves } from './pet.ts';

const LIMIT = 8.21;
/** Fewest values of a calendar month in the calibration period that a fit is made from. */
export const MIN_CALIBRATION_VALUES = 3;

type Distribution = 'gamma' | 'log-logistic';

/** Sums of `scale` consecutive months ending at each month (nodata until `scale` months are there). */
function accumulate({ months, totals }: MonthlySeries, cells: number, scale: number): Float64Array {
  const out = new Float64Array(months * cells).fill(NaN);
  for (let m = scale - 1; m < months; m++)
    for (let c = 0; c < cells; c++) {
      let sum = 0;
      for (let k = m - scale + 1; k <= m; k++) sum += totals[k * cells + c]!;
      out[m * cells + c] = sum;
    }
  return out;
}

/** The probability of `x` under the fit of one calendar month's calibration values, or undefined without a fit. */
function probabilityModel(distribution: Distribution, calibration: Float64Array): ((x: number) => number) | undefined {
  if (calibration.length < MIN_CALIBRATION_VALUES) return undefined;
  if (distribution === 'log-logistic') {
    const fit = fitLogLogistic(calibration);
    return fit && ((x) => logLogisticCdf(x, fit));
  }
  // Months without precipitation are a probability mass at zero; the gamma is fitted to the wet ones.
  const wet = calibration.filter((v) => v > 0);
  const dry = (calibration.length - wet.length) / calibration.length;
  const fit = fitGamma(wet);
  if (!fit) return undefined;
  return (x) => (x > 0 ? dry + (1 - dry) * gammaCdf(x, fit) : dry);
}

/**
 * The standardized index of every accumulated value (time-major rows from month ordinal `first`), each fitted
 * over the values of its calendar month whose year is in `years`.
 */
export function standardize(
  accumulated: Float64Array,
  first: number,
  cells: number,
  years: [number, number],
  distribution: Distribution,
): Float64Array {
  const months = accumulated.length / cells;
  const out = new Float64Array(accumulated.length).fill(NaN);
  const sample = new Float64Array(months);
  for (let calendarMonth = 0; calendarMonth < 12; calendarMonth++) {
    const rows: number[] = [];
    for (let m = 0; m < months; m++) if ((first + m) % 12 === calendarMonth) rows.push(m);
    const calibrationRows = rows.filter((m) => {
      const year = Math.floor((first + m) / 12);
      return year >= years[0] && year <= years[1];
    });
    for (let c = 0; c < cells; c++) {
      let n = 0;
      for (const m of calibrationRows) {
        const v = accumulated[m * cells + c]!;
        if (!Number.isNaN(v)) sample[n++] = v;
      }
      const probability = probabilityModel(distribution, sample.subarray(0, n));
      if (!probability) continue;
      for (const m of rows) {
        const v = accumulated[m * cells + c]!;
        if (Number.isNaN(v)) continue;
        out[m * cells + c] = Math.min(LIMIT, Math.max(-LIMIT, normalQuantile(probability(v))));
      }
    }
  }
  return out;
}

function calibrationYears(process: string, period: unknown, first: number, months: number): [number, number] {
  if (period === null || period === undefined) return [Math.floor(first / 12), Math.floor((first + months - 1) / 12)];
  const [from, to] = (period as string[]).map(Number) as [number, number];
  if (!(to >= from)) throw new ProcessingError('TemporalExtentEmpty', 'The calibration period ends before it starts.');
  if (to < Math.floor(first / 12) || from > Math.floor((first + months - 1) / 12))
    throw invalidArgument(process, 'calibration_period', `the data has no month in ${from}-${to}`);
  return [from, to];
}

interface Series {
  metadata: CubeMetadata;
  axis: number;
  shape: number[];
  instants: number[];
  /** The input values, each in its working unit. */
  values: Float64Array[];
}

/** The aligned inputs, materialized and converted, with their temporal labels as instants. */
async function readSeries(process: string, inputs: IndexInput[], context: ProcessContext): Promise<Series> {
  const { grid, cubes, convert } = alignedInputs(process, inputs);
  const axis = temporalAxis(grid, null);
  const instants = labelInstants(grid.dimensions[axis]!.labels);
  if (instants.some(Number.isNaN))
    throw invalidArgument(process, inputs[0]!.parameter, 'the temporal labels are not all dates');
  // Each input is held as read, as doubles and time-major while the index is fitted.
  context.memory?.check(grid.cells * cubes.length * 3 * 8, `The ${cubes.length} input series of '${process}'`);
  const values: Float64Array[] = [];
  for (const [k, cube] of cubes.entries()) {
    const read = Float64Array.from(await materialize(cube, context.limits.maxCubeCells, context.signal));
    convert[k]!(read);
    values.push(read);
  }
  return { metadata: grid.metadata, axis, shape: grid.shape, instants, values };
}

/** The index as a cube: the input's dimensions with monthly temporal labels and one band named `band`. */
function indexCube(series: Series, monthly: MonthlySeries, rows: Float64Array, band: string): DataCube {
  const layout = timeLayout(series.shape, series.axis);
  const metadata = resultMetadata(series.metadata, band, '1');
  const labels = Array.from({ length: monthly.months }, (_, m) => periodLabel('month', monthly.first + m));
  return memoryCube({
    dimensions: metadata.dimensions.map((d, i) => (i === series.axis ? { ...d, labels } : d)),
    data: cubeOrder(rows, layout, monthly.months),
    units: metadata.units,
  });
}

async function spi({ data, scale, calibration_period }: Args, context: ProcessContext): Promise<DataCube> {
  // The description's schema bounds the scale to whole months from 1 to 48.
  const months = scale as number;
  const series = await readSeries(
    'spi',
    [{ cube: data as DataCube, parameter: 'data', quantity: 'precipitation' }],
    context,
  );
  const layout = timeLayout(series.shape, series.axis);
  const monthly = monthlyTotals(timeMajor(series.values[0]!, layout), series.instants, layout.cells, ['spi', 'data']);
  const years = calibrationYears('spi', calibration_period, monthly.first, monthly.months);
  const rows = standardize(accumulate(monthly, layout.cells, months), monthly.first, layout.cells, years, 'gamma');
  return indexCube(series, monthly, rows, 'spi');
}

/** The latitude of every cell (degrees north), from the `y` labels of a cube on EPSG:4326. */
function cellLatitudes(series: Series, process: string): Float64Array {
  const y = spatialIndex(series.metadata.dimensions, 'y');
  const dimension = series.metadata.dimensions[y];
  if (!dimension || !(dimension.crs === undefined || dimension.crs === 'EPSG:4326' || dimension.crs === 4326))
    throw invalidArgument(process, 'tmin', 'the latitude of the cells needs a y dimension in EPSG:4326');
  const layout = timeLayout(series.shape, series.axis);
  const yStride = series.shape.slice(y + 1).reduce((a, b) => a * b, 1);
  const latitudes = new Float64Array(layout.cells);
  // The first time label's positions hold every cell once.
  for (let p = 0; p < series.values[0]!.length; p++) {
    if (Math.floor(p / layout.stride) % layout.times !== 0) continue;
    latitudes[cellOf(layout, p)] = Number(dimension.labels[Math.floor(p / yStride) % series.shape[y]!]);
  }
  return latitudes;
}

const DAY_MS = 86_400_000;

function dayOfYear(instant: number): number {
  const date = new Date(instant);
  return Math.floor((instant - Date.UTC(date.getUTCFullYear(), 0, 1)) / DAY_MS) + 1;
}

async function spei(
  { precipitation, tmin, tmax, scale, calibration_period }: Args,
  context: ProcessContext,
): Promise<DataCube> {
  const months = scale as number;
  const series = await readSeries(
    'spei',
    [
      { cube: precipitation as DataCube, parameter: 'precipitation', quantity: 'precipitation' },
      { cube: tmin as DataCube, parameter: 'tmin', quantity: 'temperature' },
      { cube: tmax as DataCube, parameter: 'tmax', quantity: 'temperature' },
    ],
    context,
  );
  const layout = timeLayout(series.shape, series.axis);
  const latitudes = cellLatitudes(series, 'spei');
  const [p, low, high] = series.values.map((v) => timeMajor(v, layout)) as [Float64Array, Float64Array, Float64Array];
  // The daily water balance P − PET, in place of the precipitation.
  series.instants.forEach((instant, t) => {
    const day = dayOfYear(instant);
    for (let c = 0; c < layout.cells; c++) {
      const i = t * layout.cells + c;
      p[i] = p[i]! - hargreaves(low[i]!, high[i]!, extraterrestrialRadiation(latitudes[c]!, day));
    }
  });
  const monthly = monthlyTotals(p, series.instants, layout.cells, ['spei', 'precipitation']);
  const years = calibrationYears('spei', calibration_period, monthly.first, monthly.months);
  const rows = standardize(
    accumulate(monthly, layout.cells, months),
    monthly.first,
    layout.cells,
    years,
    'log-logistic',
  );
  return indexCube(series, monthly, rows, 'spei');
}

export const droughtProcesses: ProcessDefinition[] = [
  { id: 'spi', run: spi },
  { id: 'spei', run: spei },
];
