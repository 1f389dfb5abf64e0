import { describe, expect, it } from 'vitest';
import {
  formatPeriod,
  lastCompletePeriod,
  nextPeriod,
  parsePeriod,
  PeriodError,
  periodRange,
  type PeriodType,
} from './index.ts';

describe('periods', () => {
  it.each<[PeriodType, string, string]>([
    ['hourly', '2024-02-29T23', '2024-03-01T00'],
    ['daily', '2024-02-28', '2024-02-29'],
    ['daily', '2023-12-31', '2024-01-01'],
    ['weekly', '2020-W53', '2021-W01'],
    ['weekly', '2024-W52', '2025-W01'],
    ['monthly', '2024-12', '2025-01'],
    ['yearly', '1999', '2000'],
  ])('%s %s is followed by %s', (type, text, next) => {
    const period = parsePeriod(type, text);
    expect(formatPeriod(period)).toBe(text);
    expect(formatPeriod(nextPeriod(period))).toBe(next);
  });

  it('puts ISO week 1 in the week holding 4 January', () => {
    expect(parsePeriod('weekly', '2021-W01').start.toISOString()).toBe('2021-01-04T00:00:00.000Z');
    expect(parsePeriod('weekly', '2020-W01').start.toISOString()).toBe('2019-12-30T00:00:00.000Z');
    expect(formatPeriod({ type: 'weekly', start: new Date('2019-12-30T00:00:00Z') })).toBe('2020-W01');
  });

  it.each([
    ['2021-01-03T12:00:00Z', '2020-W53'],
    ['2020-12-31T00:00:00Z', '2020-W53'],
    ['2019-12-29T23:59:59Z', '2019-W52'],
    ['2025-03-06T08:00:00Z', '2025-W10'],
  ])('names the ISO week of any instant in it (%s is in %s)', (instant, week) => {
    expect(formatPeriod({ type: 'weekly', start: new Date(instant) })).toBe(week);
  });

  it('takes the week before the current one as the last complete week, across ISO week 53', () => {
    expect(lastCompletePeriod('weekly', new Date('2021-01-05T00:00:00Z'))).toBe('2020-W53');
    expect(lastCompletePeriod('weekly', new Date('2021-01-03T12:00:00Z'))).toBe('2020-W52');
  });

  it.each<[PeriodType, string]>([
    ['daily', '2024-02-30'],
    ['daily', '2024-1-01'],
    ['daily', '2024-01'],
    ['hourly', '2024-01-01T24'],
    ['monthly', '2024-13'],
    ['weekly', '2021-W53'],
    ['weekly', '2021-W00'],
    ['yearly', '24'],
  ])('rejects the %s period %s with the expected form', (type, text) => {
    expect(() => parsePeriod(type, text)).toThrow(PeriodError);
    expect(() => parsePeriod(type, text)).toThrow(/expected the form/);
  });

  it('enumerates a range with both ends included', () => {
    expect(periodRange('monthly', '2023-11', '2024-02').map(formatPeriod)).toEqual([
      '2023-11',
      '2023-12',
      '2024-01',
      '2024-02',
    ]);
    expect(periodRange('daily', '2024-01-01', '2024-12-31')).toHaveLength(366);
    expect(() => periodRange('daily', '2024-02-01', '2024-01-01')).toThrow(/before start/);
    expect(() => periodRange('hourly', '2000-01-01T00', '2024-01-01T00', 1000)).toThrow(/more than 1000/);
  });
});
