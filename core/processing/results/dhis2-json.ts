/**
 * A vector cube as the payload of a DHIS2 `dataValueSets` import: one data value per geometry (its label is the
 * org unit id), time step (a DHIS2 period id) and band (a data element), nodata left out. This is what exports
 * deliver (docs/processing.md). The org unit is the geometry's feature id (else its label). `save_result` options say how labels become DHIS2 ids:
 *   data_element         the data element of a cube without bands, or with one band
 *   data_elements        {band label: data element}, for cubes with several bands (bands not named are left out)
 *   period_type          daily | weekly | monthly | yearly; inferred from the labels otherwise (periodIds)
 *   category_option_combo, attribute_option_combo   copied onto every value when given
 */
import { dhis2Period } from '../../periods/dhis2.ts';
import type { DataCube } from '../cube/cube.ts';
import { invalidArgument } from '../errors.ts';
import { periodStarts, timeAndBands } from './period-labels.ts';
import { featureIds, otherCells, vectorCells } from './vector.ts';

const FORMAT = 'dhis2-json';
const PERIOD_TYPES = ['daily', 'weekly', 'monthly', 'yearly'] as const;

const invalid = (why: string) => invalidArgument('save_result', 'options', `${FORMAT}: ${why}`);

/** DHIS2 period ids of the temporal labels (`period-labels.ts`). */
function periodIds(labels: readonly unknown[], given: unknown): string[] {
  const { type, starts } = periodStarts(labels, given, PERIOD_TYPES, invalid);
  return starts.map((t) => dhis2Period(type, t));
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
  const { time, band } = timeAndBands(cube, FORMAT);
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
  const orgUnits = featureIds(cube, found.geometry);
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
