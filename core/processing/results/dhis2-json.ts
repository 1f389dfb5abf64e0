/**
 * A vector cube as the payload of a DHIS2 `dataValueSets` import: one data value per geometry (its label is the
 * org unit id), time step (a DHIS2 period id) and band (a data element), nodata left out. This is what exports
 * deliver (docs/processing.md). The org unit is the geometry's feature id (else its label). `save_result` options say how labels become DHIS2 ids:
 *   data_element         the data element of a cube without bands, or with one band
 *   data_elements        {band label: data element}, for cubes with several bands (bands not named are left out)
 *   period_type          daily | weekly | monthly | yearly; inferred from the labels otherwise (periodIds)
 *   category_option_combo, attribute_option_combo   copied onto every value when given
 */
import { formatPeriod } from '../../periods/index.ts';
import type { DataCube } from '../cube/cube.ts';
import { invalidArgument, ProcessingError } from '../errors.ts';
import { labelInstants } from '../processes/cube/filters.ts';
import { otherCells, vectorCells } from './vector.ts';

const FORMAT = 'dhis2-json';
const PERIOD_TYPES = ['daily', 'weekly', 'monthly', 'yearly'] as const;
type PeriodType = (typeof PERIOD_TYPES)[number];
const DAY = 86_400_000;

const invalid = (why: string) => invalidArgument('save_result', 'options', `${FORMAT}: ${why}`);

/** DHIS2's id of the period that starts at `instant`: `20240105`, `2024W5`, `202401`, `2024`. */
export function dhis2Period(type: PeriodType, instant: number): string {
  const iso = formatPeriod({ type, start: new Date(instant) });
  if (type === 'weekly') {
    const [year, week] = iso.split('-W');
    return `${year}W${Number(week)}`;
  }
  return iso.replace(/-/g, '');
}

/** The period type the labels' spacing shows: the smallest gap between consecutive instants. */
function inferredPeriodType(instants: number[]): PeriodType {
  const gaps = instants.slice(1).map((t, i) => t - instants[i]!);
  if (gaps.length === 0) throw invalid('one time step cannot tell its period type; set period_type');
  const gap = Math.min(...gaps);
  if (gap >= 365 * DAY) return 'yearly';
  if (gap >= 28 * DAY) return 'monthly';
  if (gap >= 7 * DAY) return 'weekly';
  if (gap >= DAY) return 'daily';
  throw invalid('time steps less than a day apart have no DHIS2 period; aggregate them first');
}

/**
 * DHIS2 period ids of the temporal labels: instants (`2024-01-05T00:00:00Z`), or the labels of
 * `aggregate_temporal_period` (`2024` a year, `2024-005` a day of the year, and `2024-05`, which is a month or a
 * week as `period_type` says).
 */
function periodIds(labels: readonly unknown[], given: unknown): string[] {
  if (given !== undefined && !PERIOD_TYPES.includes(given as PeriodType))
    throw invalid(`period_type must be one of ${PERIOD_TYPES.join(', ')}`);
  const type = given as PeriodType | undefined;
  const texts = labels.map(String);
  if (texts.every((l) => /^\d{4}$/.test(l))) return texts;
  if (texts.every((l) => /^\d{4}-\d{3}$/.test(l)))
    return texts.map((l) => dhis2Period('daily', Date.UTC(Number(l.slice(0, 4)), 0, Number(l.slice(5)))));
  if (texts.every((l) => /^\d{4}-\d{2}$/.test(l))) {
    if (type === 'monthly') return texts.map((l) => l.replace('-', ''));
    if (type === 'weekly') return texts.map((l) => `${l.slice(0, 4)}W${Number(l.slice(5))}`);
    throw invalid(
      `labels like '${texts[0]}' are months or weeks (or dekads, which DHIS2 has not): set period_type to monthly or weekly`,
    );
  }
  const instants = labelInstants(texts);
  if (instants.some(Number.isNaN))
    throw new ProcessingError(
      'FormatUnsuitable',
      `The temporal label '${texts[instants.findIndex(Number.isNaN)]}' is not a date or a period.`,
    );
  const periodType = type ?? inferredPeriodType(instants);
  return instants.map((t) => dhis2Period(periodType, t));
}

/**
 * A value as DHIS2 stores it: a decimal string rounded to at most six places, without an exponent (JavaScript
 * writes one from 1e21 on, where a double holds no fraction anyway; below 1e-6 the value rounds to 0).
 */
export const formatValue = (v: number) =>
  Math.abs(v) >= 1e21 ? BigInt(v).toString() : String(Math.round(v * 1e6) / 1e6);

export async function vectorDhis2Json(
  cube: DataCube,
  maxCells: number,
  signal?: AbortSignal,
  options: Record<string, unknown> = {},
): Promise<string> {
  const time = cube.dimensions.find((d) => d.type === 'temporal');
  if (!time) throw new ProcessingError('FormatUnsuitable', `A ${FORMAT} cube needs a temporal dimension.`);
  const band = cube.dimensions.find((d) => d.type === 'bands');
  const extra = cube.dimensions.find((d) => d !== time && d !== band && d.type !== 'geometry' && d.labels.length !== 1);
  if (extra)
    throw new ProcessingError(
      'FormatUnsuitable',
      `Dimension '${extra.name}' has ${extra.labels.length} labels; ${FORMAT} has no place for it: reduce it first.`,
    );
  const bands = band ? band.labels.map(String) : ['value'];
  const single = typeof options.data_element === 'string' ? options.data_element : undefined;
  const mapping = options.data_elements;
  if (mapping !== undefined && (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping)))
    throw invalid('data_elements must map band labels to data element ids');
  const elements = new Map<string, string>();
  if (mapping)
    for (const [label, id] of Object.entries(mapping)) {
      if (typeof id !== 'string' || id === '') throw invalid(`the data element of band '${label}' is not an id`);
      if (!bands.includes(label)) throw invalid(`data_elements names band '${label}', which the cube does not have`);
      elements.set(label, id);
    }
  else if (single && bands.length === 1) elements.set(bands[0]!, single);
  else
    throw invalid(
      bands.length === 1
        ? 'data_element (the id of the data element the values are for) is required'
        : `the cube has ${bands.length} bands: map them with data_elements`,
    );
  const periods = periodIds(time.labels, options.period_type);
  const combos = {
    ...(typeof options.category_option_combo === 'string' && { categoryOptionCombo: options.category_option_combo }),
    ...(typeof options.attribute_option_combo === 'string' && {
      attributeOptionCombo: options.attribute_option_combo,
    }),
  };

  const found = await vectorCells(cube, FORMAT, maxCells, signal);
  const { names, cells } = otherCells(cube, found);
  const [timeAt, bandAt] = [names.indexOf(time.name), band ? names.indexOf(band.name) : -1];
  const periodOf = new Map(time.labels.map((label, i) => [String(label), periods[i]!]));
  // The org unit is the feature's id (a collection's `idProperty`), else the geometry's label.
  const features = cube.metadata.geometries!;
  const orgUnits = cube.dimensions[found.geometry]!.labels.map((label, g) => String(features[g]?.id ?? label));
  const dataValues: Record<string, string>[] = [];
  orgUnits.forEach((orgUnit, g) => {
    const base = g * found.strides[found.geometry]!;
    for (const c of cells) {
      const dataElement = elements.get(bandAt >= 0 ? c.labels[bandAt]! : 'value');
      const value = found.values[base + c.offset]!;
      // Nodata, and infinities (a division by zero), which DHIS2 cannot store, are left out.
      if (dataElement === undefined || !Number.isFinite(value)) continue;
      dataValues.push({
        dataElement,
        period: periodOf.get(c.labels[timeAt]!)!,
        orgUnit,
        value: formatValue(value),
        ...combos,
      });
    }
  });
  return JSON.stringify({ dataValues });
}
