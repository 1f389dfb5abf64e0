import { describe, expect, it } from 'vitest';
import { exportSpecSchema } from '../resources/export/schema.ts';
import type { DataValue } from './payload.ts';
import { parseDhis2Period } from '../periods/dhis2.ts';
import { periodsIn } from './periods.ts';
import { prepareValues } from './prepare.ts';

const spec = (extra: Record<string, unknown> = {}) =>
  exportSpecSchema.parse({ target: { type: 'dhis2-data-value-sets', url: 'http://dhis2.test' }, ...extra });

const daily = (orgUnit: string, days: string[], value: (d: number) => number, dataElement = 'rain'): DataValue[] =>
  days.map((period, d) => ({ dataElement, period, orgUnit, value: String(value(d)) }));

const days = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(2, '0')}`);

describe('DHIS2 periods', () => {
  it('counts the finer periods of a coarser one', () => {
    expect(periodsIn(parseDhis2Period('202402')!, 'daily')).toBe(29);
    expect(periodsIn(parseDhis2Period('2023')!, 'daily')).toBe(365);
    expect(periodsIn(parseDhis2Period('2024W1')!, 'daily')).toBe(7);
    expect(periodsIn(parseDhis2Period('2024')!, 'monthly')).toBe(12);
  });
});

describe('prepareValues', () => {
  it('passes values through when the export maps nothing', () => {
    const values = daily('OU1', ['20240101', '20240102'], (d) => d + 0.5);
    expect(prepareValues(values, spec())).toEqual({ values, droppedPeriods: [] });
  });

  it('maps data elements, org units and option combos', () => {
    const prepared = prepareValues(
      daily('feature-7', ['20240101'], () => 3),
      spec({
        mapping: {
          dataElements: { rain: 'DErain00001' },
          orgUnits: { 'feature-7': 'OUdistrict7' },
          categoryOptionCombo: 'COCcombo001',
          attributeOptionCombo: 'AOCcombo001',
        },
      }),
    );
    expect(prepared.values).toEqual([
      {
        dataElement: 'DErain00001',
        period: '20240101',
        orgUnit: 'OUdistrict7',
        categoryOptionCombo: 'COCcombo001',
        attributeOptionCombo: 'AOCcombo001',
        value: '3',
      },
    ]);
  });

  it('refuses a payload member the mapping leaves out', () => {
    expect(() =>
      prepareValues(
        daily('OU1', ['20240101'], () => 1),
        spec({ mapping: { orgUnits: { OU2: 'OUother0001' } } }),
      ),
    ).toThrow(
      expect.objectContaining({ code: 'MappingIncomplete', message: expect.stringMatching(/org unit for 'OU1'/) }),
    );
  });

  it.each([
    ['sum', 465],
    ['mean', 15],
    ['min', 0],
    ['max', 30],
  ])('aggregates a complete month of days with %s', (aggregation, expected) => {
    const prepared = prepareValues(
      daily('OU1', days('202401', 31), (d) => d),
      spec({ mapping: { periodType: 'monthly' }, rules: { temporalAggregation: aggregation } }),
    );
    expect(prepared.values).toEqual([
      { dataElement: 'rain', period: '202401', orgUnit: 'OU1', value: String(expected) },
    ]);
  });

  it('aggregates days into ISO weeks, the week of 1 January 2024 included', () => {
    const prepared = prepareValues(
      daily('OU1', days('202401', 14), () => 1),
      spec({ mapping: { periodType: 'weekly' }, rules: { temporalAggregation: 'sum' } }),
    );
    expect(prepared.values.map((v) => [v.period, v.value])).toEqual([
      ['2024W1', '7'],
      ['2024W2', '7'],
    ]);
  });

  it('rejects or drops incomplete export periods', () => {
    const values = [...daily('OU1', days('202401', 31), () => 1), ...daily('OU1', ['20240201'], () => 1)];
    const monthly = { mapping: { periodType: 'monthly' }, rules: { temporalAggregation: 'sum' } };
    expect(() => prepareValues(values, spec(monthly))).toThrow(
      expect.objectContaining({
        code: 'IncompletePeriods',
        message: expect.stringMatching(/1 of the 29 daily periods of 202402/),
      }),
    );
    const dropped = prepareValues(
      values,
      spec({ ...monthly, rules: { temporalAggregation: 'sum', incompletePeriods: 'drop' } }),
    );
    expect(dropped).toEqual({
      values: [{ dataElement: 'rain', period: '202401', orgUnit: 'OU1', value: '31' }],
      droppedPeriods: ['202402'],
    });
  });

  it('needs an aggregation for finer data and refuses what cannot be aggregated', () => {
    const values = daily('OU1', days('202401', 31), () => 1);
    expect(() => prepareValues(values, spec({ mapping: { periodType: 'monthly' } }))).toThrow(
      expect.objectContaining({ code: 'TemporalAggregationRequired' }),
    );
    const weekly = [{ dataElement: 'rain', period: '2024W5', orgUnit: 'OU1', value: '1' }];
    expect(() =>
      prepareValues(weekly, spec({ mapping: { periodType: 'monthly' }, rules: { temporalAggregation: 'sum' } })),
    ).toThrow(expect.objectContaining({ code: 'InvalidPayload', message: expect.stringMatching(/do not fall whole/) }));
    expect(() => prepareValues(values, spec({ mapping: { periodType: 'daily' } }))).not.toThrow();
    const monthly = [{ dataElement: 'rain', period: '202401', orgUnit: 'OU1', value: '1' }];
    expect(() => prepareValues(monthly, spec({ mapping: { periodType: 'daily' } }))).toThrow(
      expect.objectContaining({ code: 'InvalidPayload', message: expect.stringMatching(/finer/) }),
    );
    expect(() => prepareValues([{ ...monthly[0]!, period: '2024Q1' }], spec())).toThrow(
      expect.objectContaining({ code: 'InvalidPayload' }),
    );
    expect(() => prepareValues([...monthly, ...monthly], spec())).toThrow(
      expect.objectContaining({ code: 'InvalidPayload', message: expect.stringMatching(/two values/) }),
    );
  });
});
