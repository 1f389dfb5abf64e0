import { describe, expect, it } from 'vitest';
import type { PeriodType } from '../periods/index.ts';
import { AvailabilityError, latestAvailable, resolveAvailability, type AvailabilityRule } from './availability.ts';
import { rasterProvider } from './available.ts';

const at = (iso: string) => new Date(iso);
const chirps: AvailabilityRule = { rule: 'monthly-after-day', day: 20 };
const era5: AvailabilityRule = { rule: 'lag-hours', hours: 120 };
const release = (year: number, offset: number, future: boolean): AvailabilityRule => ({
  rule: 'release-year',
  year,
  offset,
  future,
});

describe('latestAvailable', () => {
  it.each<[string, PeriodType, AvailabilityRule, string, string]>([
    ['CHIRPS on day 20 still lacks the previous month', 'daily', chirps, '2025-03-20T23:59:59Z', '2025-01-31'],
    ['CHIRPS on day 21 has the previous month', 'daily', chirps, '2025-03-21T00:00:00Z', '2025-02-28'],
    ['CHIRPS across a year end, day 20', 'daily', chirps, '2025-01-20T12:00:00Z', '2024-11-30'],
    ['CHIRPS across a year end, day 21', 'daily', chirps, '2025-01-21T00:00:00Z', '2024-12-31'],
    ['CHIRPS in a leap year February', 'daily', chirps, '2024-03-21T00:00:00Z', '2024-02-29'],
    ['CHIRPS monthly form', 'monthly', chirps, '2025-03-21T00:00:00Z', '2025-02'],
    [
      'CHIRPS weekly form keeps only weeks complete by the month end',
      'weekly',
      chirps,
      '2025-03-21T00:00:00Z',
      '2025-W08',
    ],
    ['ERA5-Land lag across midnight', 'hourly', era5, '2025-03-06T02:30:00Z', '2025-03-01T01'],
    ['ERA5-Land lag on the hour', 'hourly', era5, '2025-03-06T03:00:00Z', '2025-03-01T02'],
    ['ERA5-Land lag across a year end', 'hourly', era5, '2026-01-05T00:10:00Z', '2025-12-30T23'],
    ['ERA5-Land lag in daily form keeps complete days', 'daily', era5, '2025-03-06T02:30:00Z', '2025-02-28'],
    [
      'a zero lag is the last complete hour',
      'hourly',
      { rule: 'lag-hours', hours: 0 },
      '2025-03-06T02:30:00Z',
      '2025-03-06T01',
    ],
    ['WorldPop release year, no offset', 'yearly', release(2025, 0, false), '2026-06-01T00:00:00Z', '2025'],
    ['WorldPop offset clamped to the current year', 'yearly', release(2025, 5, false), '2026-06-01T00:00:00Z', '2026'],
    [
      'WorldPop future years where the template allows',
      'yearly',
      release(2025, 5, true),
      '2026-06-01T00:00:00Z',
      '2030',
    ],
    ['WorldPop on the last second of a year', 'yearly', release(2025, 5, false), '2026-12-31T23:59:59Z', '2026'],
    ['sample is available today', 'daily', { rule: 'today' }, '2025-03-06T02:30:00Z', '2025-03-06'],
    ['sample today in ISO week 53', 'weekly', { rule: 'today' }, '2021-01-03T12:00:00Z', '2020-W53'],
    ['sample today in hourly form', 'hourly', { rule: 'today' }, '2025-03-06T23:59:00Z', '2025-03-06T23'],
    [
      'a forecast reaches its horizon',
      'daily',
      { rule: 'forecast-hours', hours: 240 },
      '2025-12-25T06:00:00Z',
      '2026-01-04',
    ],
    [
      'a forecast horizon across midnight',
      'hourly',
      { rule: 'forecast-hours', hours: 3 },
      '2025-03-06T22:30:00Z',
      '2025-03-07T01',
    ],
  ])('%s', (_name, type, rule, now, expected) => {
    expect(latestAvailable(type, rule, at(now))).toBe(expected);
  });
});

describe('resolveAvailability', () => {
  it('lets the template override members of the provider rule', () => {
    expect(resolveAvailability({ rule: 'lag-hours', hours: 120 }, { hours: 72 })).toEqual({
      rule: 'lag-hours',
      hours: 72,
    });
  });

  it('takes the release year from a WorldPop release name and the reach from the template', () => {
    const provider = rasterProvider('worldpop')!.availability({ release: 'R2025A', iso3: 'SLE' });
    expect(resolveAvailability(provider, { rule: 'release-year', offset: 5, future: true })).toEqual(
      release(2025, 5, true),
    );
  });

  it('gives each built-in provider a rule', () => {
    expect(rasterProvider('chirps')!.availability({})).toEqual({ rule: 'monthly-after-day', day: 20 });
    expect(rasterProvider('era5-land')!.availability({})).toEqual({ rule: 'lag-hours', hours: 120 });
    expect(rasterProvider('sample')!.availability({})).toEqual({ rule: 'today' });
  });

  it.each([
    [{ rule: 'lag-hours', hours: 120 }, { hours: -1 }, /hours/],
    [{ rule: 'today' }, { rule: 'weekly-after' }, /rule/],
    [{ rule: 'release-year', year: Number.NaN }, undefined, /year/],
  ])('refuses %j with %j', (provider, template, message) => {
    expect(() => resolveAvailability(provider, template)).toThrow(AvailabilityError);
    expect(() => resolveAvailability(provider, template)).toThrow(message);
  });
});
