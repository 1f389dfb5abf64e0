/**
 * What a delivery sends: the payload's values through the export's mapping (data elements, org units, option
 * combos) and rules (finer periods aggregated into the export period; incomplete periods rejected or dropped).
 */
import { RunError } from '../runs/errors.ts';
import type { ExportSpec } from '../resources/export/schema.ts';
import { formatValue } from '../processing/results/dhis2-json.ts';
import type { DataValue } from './payload.ts';
import { valueKey } from './payload.ts';
import type { ExportPeriodType } from '../resources/export/schema.ts';
import { dhis2Id, parseDhis2Period } from '../periods/dhis2.ts';
import { enclosing, isFiner, periodsIn, tiles } from './periods.ts';

export interface Prepared {
  values: DataValue[];
  /** Export periods left out because the payload covers them only in part. */
  droppedPeriods: string[];
}

function mapped(id: string, map: Record<string, string> | undefined, what: string): string {
  if (!map) return id;
  const to = map[id];
  if (to === undefined)
    throw new RunError('MappingIncomplete', `The export maps no ${what} for '${id}' of the payload (spec.mapping).`);
  return to;
}

const AGGREGATE: Record<NonNullable<ExportSpec['rules']['temporalAggregation']>, (xs: number[]) => number> = {
  sum: (xs) => xs.reduce((a, b) => a + b, 0),
  mean: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
  min: (xs) => Math.min(...xs),
  max: (xs) => Math.max(...xs),
};

export function prepareValues(payload: DataValue[], spec: Pick<ExportSpec, 'mapping' | 'rules'>): Prepared {
  const { mapping, rules } = spec;
  const target = mapping.periodType;
  const combos = {
    ...(mapping.categoryOptionCombo && { categoryOptionCombo: mapping.categoryOptionCombo }),
    ...(mapping.attributeOptionCombo && { attributeOptionCombo: mapping.attributeOptionCombo }),
  };
  // Each value keyed by where it goes, with the source periods that fall there.
  const groups = new Map<
    string,
    {
      value: Omit<DataValue, 'value'>;
      numbers: number[];
      texts: string[];
      sources: Set<string>;
      fine: ExportPeriodType;
    }
  >();
  for (const v of payload) {
    const period = parseDhis2Period(v.period);
    if (!period)
      throw new RunError(
        'InvalidPayload',
        `The payload period '${v.period}' is not a daily, weekly, monthly or yearly DHIS2 period.`,
      );
    const fine = period.type as ExportPeriodType;
    let exportPeriod = v.period;
    if (target && target !== fine) {
      if (isFiner(target, fine))
        throw new RunError(
          'InvalidPayload',
          `The payload is ${fine} (${v.period}); the export's ${target} periods are finer and cannot be made from it.`,
        );
      if (!tiles(fine, target))
        throw new RunError(
          'InvalidPayload',
          `${fine} periods (${v.period}) do not fall whole into ${target} periods; deliver them ${fine}.`,
        );
      if (!rules.temporalAggregation)
        throw new RunError(
          'TemporalAggregationRequired',
          `The payload is ${fine} and the export ${target}: set spec.rules.temporalAggregation (sum, mean, min or max).`,
        );
      exportPeriod = dhis2Id(enclosing(period, target));
    }
    const value = {
      dataElement: mapped(v.dataElement, mapping.dataElements, 'data element'),
      period: exportPeriod,
      orgUnit: mapped(v.orgUnit, mapping.orgUnits, 'org unit'),
      ...(v.categoryOptionCombo && { categoryOptionCombo: v.categoryOptionCombo }),
      ...(v.attributeOptionCombo && { attributeOptionCombo: v.attributeOptionCombo }),
      ...combos,
    };
    const key = valueKey(value);
    const group = groups.get(key) ?? { value, numbers: [], texts: [], sources: new Set(), fine };
    if (group.sources.has(v.period))
      throw new RunError(
        'InvalidPayload',
        `The payload holds two values for ${key.split('|').slice(0, 3).join(', ')} (${v.period}).`,
      );
    group.sources.add(v.period);
    group.numbers.push(Number(v.value));
    group.texts.push(v.value);
    groups.set(key, group);
  }
  const values: DataValue[] = [];
  const dropped = new Set<string>();
  for (const group of groups.values()) {
    const aggregated = target !== undefined && target !== group.fine;
    if (!aggregated) {
      values.push({ ...group.value, value: group.texts[0]! });
      continue;
    }
    const expected = periodsIn(parseDhis2Period(group.value.period)!, group.fine);
    if (group.sources.size < expected) {
      if (rules.incompletePeriods === 'drop') {
        dropped.add(group.value.period);
        continue;
      }
      throw new RunError(
        'IncompletePeriods',
        `The payload has ${group.sources.size} of the ${expected} ${group.fine} periods of ${group.value.period} (${group.value.dataElement}, ${group.value.orgUnit}); set spec.rules.incompletePeriods to drop to leave such periods out.`,
      );
    }
    if (group.numbers.some((n) => !Number.isFinite(n)))
      throw new RunError(
        'InvalidPayload',
        `A value of ${group.value.period} (${group.value.dataElement}, ${group.value.orgUnit}) is not a number and cannot be aggregated.`,
      );
    values.push({ ...group.value, value: formatValue(AGGREGATE[rules.temporalAggregation!](group.numbers)) });
  }
  return { values, droppedPeriods: [...dropped].sort() };
}
