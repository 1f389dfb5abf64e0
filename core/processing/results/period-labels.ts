/**
 * The periods a vector cube's temporal labels stand for, for the formats that name periods (dhis2-json, chap-csv),
 * and the dimensions such a format places:
 * instants (`2024-01-05T00:00:00Z`), or the labels of `aggregate_temporal_period` (`2024` a year, `2024-005` a day
 * of the year, and `2024-05`, which is a month or an ISO week as the given period type says).
 */
import { parsePeriod, PeriodError, type PeriodType } from '../../periods/index.ts';
import type { DataCube } from '../cube/cube.ts';
import { ProcessingError } from '../errors.ts';
import { labelInstants } from '../processes/cube/filters.ts';

const DAY = 86_400_000;

/**
 * The temporal dimension and the bands dimension (if any) of a vector cube written as `format`, which places the
 * geometries, the periods and the bands; any other dimension must have been reduced to one label.
 */
export function timeAndBands(cube: DataCube, format: string) {
  const time = cube.dimensions.find((d) => d.type === 'temporal');
  if (!time) throw new ProcessingError('FormatUnsuitable', `A ${format} cube needs a temporal dimension.`);
  const band = cube.dimensions.find((d) => d.type === 'bands');
  const extra = cube.dimensions.find((d) => d !== time && d !== band && d.type !== 'geometry' && d.labels.length !== 1);
  if (extra)
    throw new ProcessingError(
      'FormatUnsuitable',
      `Dimension '${extra.name}' has ${extra.labels.length} labels; ${format} has no place for it: reduce it first.`,
    );
  return { time, band };
}

/** The period type the labels' spacing shows: the smallest gap between consecutive instants. */
function inferredPeriodType(instants: number[], invalid: (why: string) => ProcessingError): PeriodType {
  const sorted = [...instants].sort((a, b) => a - b);
  const gaps = sorted.slice(1).map((t, i) => t - sorted[i]!);
  if (gaps.length === 0) throw invalid('one time step cannot tell its period type; set period_type');
  const gap = Math.min(...gaps);
  if (gap >= 365 * DAY) return 'yearly';
  if (gap >= 28 * DAY) return 'monthly';
  if (gap >= 7 * DAY) return 'weekly';
  if (gap >= DAY) return 'daily';
  throw invalid('time steps less than a day apart have no period of these types; aggregate them first');
}

/** The Monday that starts ISO week `2024-05` (a label of `aggregate_temporal_period`'s weeks). */
function isoWeekStart(label: string): number {
  try {
    return parsePeriod('weekly', `${label.slice(0, 4)}-W${label.slice(5)}`).start.getTime();
  } catch (err) {
    if (!(err instanceof PeriodError)) throw err;
    throw new ProcessingError('FormatUnsuitable', `The temporal label '${label}' is not an ISO week.`);
  }
}

/**
 * The type of the labels' periods and the start of each. `given` is the format's `period_type` option (one of
 * `types`, checked here); without it the type is read from the labels, or from the spacing of instants.
 */
export function periodStarts(
  labels: readonly unknown[],
  given: unknown,
  types: readonly PeriodType[],
  invalid: (why: string) => ProcessingError,
): { type: PeriodType; starts: number[] } {
  if (given !== undefined && !types.includes(given as PeriodType))
    throw invalid(`period_type must be one of ${types.join(', ')}`);
  const type = given as PeriodType | undefined;
  const texts = labels.map(String);
  if (texts.every((l) => /^\d{4}$/.test(l)))
    return { type: 'yearly', starts: texts.map((l) => Date.UTC(Number(l), 0, 1)) };
  if (texts.every((l) => /^\d{4}-\d{3}$/.test(l)))
    return { type: 'daily', starts: texts.map((l) => Date.UTC(Number(l.slice(0, 4)), 0, Number(l.slice(5)))) };
  if (texts.every((l) => /^\d{4}-\d{2}$/.test(l))) {
    if (type === 'monthly')
      return { type, starts: texts.map((l) => Date.UTC(Number(l.slice(0, 4)), Number(l.slice(5)) - 1, 1)) };
    if (type === 'weekly') return { type, starts: texts.map(isoWeekStart) };
    throw invalid(
      `labels like '${texts[0]}' are months or weeks (or dekads, which have no period here): set period_type to monthly or weekly`,
    );
  }
  const instants = labelInstants(texts);
  if (instants.some(Number.isNaN))
    throw new ProcessingError(
      'FormatUnsuitable',
      `The temporal label '${texts[instants.findIndex(Number.isNaN)]}' is not a date or a period.`,
    );
  return { type: type ?? inferredPeriodType(instants, invalid), starts: instants };
}
