import { describe, expect, it } from 'vitest';
import { PeriodError, type PeriodType } from '../periods/index.ts';
import type { DataSource } from '../resources/data-source/schema.ts';
import type { Dataset } from '../resources/dataset/schema.ts';
import { planSync, type SyncDetail } from './plan.ts';

interface SourceShape {
  provider: string;
  periodType?: PeriodType;
  kind?: 'temporal' | 'release' | 'static';
  availability?: Record<string, unknown>;
  parameters?: Record<string, unknown>;
  future?: boolean;
}

const sourceOf = (s: SourceShape): DataSource =>
  ({
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'DataSource',
    metadata: { name: `${s.provider}-src` },
    spec: {
      datasetName: 'test',
      periodType: s.periodType,
      provider: { name: s.provider, parameters: s.parameters ?? {} },
      sync: { kind: s.kind ?? 'temporal', availability: s.availability },
      temporalDirection: s.future ? 'future' : 'past',
    },
  }) as DataSource;

const datasetOf = (format: 'zarr' | 'netcdf' = 'zarr'): Dataset =>
  ({
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'Dataset',
    metadata: { name: 'ds' },
    spec: { source: 'src', datasetName: 'test', format, zarrVersion: 2, publish: true },
  }) as Dataset;

const chirps: SourceShape = { provider: 'chirps', periodType: 'daily' };
const era5: SourceShape = { provider: 'era5-land', periodType: 'hourly' };
const worldpop: SourceShape = {
  provider: 'worldpop',
  periodType: 'yearly',
  kind: 'release',
  parameters: { iso3: 'SLE', release: 'R2025A' },
  availability: { offset: 5, future: true },
};
const sampleWeekly: SourceShape = { provider: 'sample', periodType: 'weekly' };
const forecast: SourceShape = {
  provider: 'sample',
  periodType: 'daily',
  availability: { rule: 'forecast-hours', hours: 72 },
  future: true,
};

interface Row {
  name: string;
  source: SourceShape;
  format?: 'zarr' | 'netcdf';
  committed: [string, string] | undefined;
  end?: string;
  now: string;
  want: Partial<SyncDetail>;
}

const rows: Row[] = [
  {
    name: 'CHIRPS on day 20 appends only through the month before last',
    source: chirps,
    committed: ['2024-12-01', '2024-12-31'],
    now: '2025-02-20T10:00:00Z',
    want: {
      action: 'no_op',
      reason: 'up_to_date',
      target_end: '2024-12-31',
      target_end_source: 'availability',
      delta_start: null,
    },
  },
  {
    name: 'CHIRPS on day 21 appends the previous month',
    source: chirps,
    committed: ['2024-12-01', '2024-12-31'],
    now: '2025-02-21T00:00:00Z',
    want: {
      action: 'append',
      reason: 'new_periods_available',
      sync_kind: 'temporal',
      current_start: '2024-12-01',
      current_end: '2024-12-31',
      target_end: '2025-01-31',
      target_end_source: 'availability',
      delta_start: '2025-01-01',
      delta_end: '2025-01-31',
    },
  },
  {
    name: 'CHIRPS across a year end appends December',
    source: chirps,
    committed: ['2024-11-01', '2024-11-30'],
    now: '2025-01-21T00:00:00Z',
    want: { action: 'append', delta_start: '2024-12-01', delta_end: '2024-12-31' },
  },
  {
    name: 'a requested end inside availability is taken as is',
    source: chirps,
    committed: ['2024-11-01', '2024-11-30'],
    end: '2024-12-10',
    now: '2025-03-01T00:00:00Z',
    want: { action: 'append', target_end: '2024-12-10', target_end_source: 'request', delta_end: '2024-12-10' },
  },
  {
    name: 'a requested end past availability is clamped',
    source: chirps,
    committed: ['2024-11-01', '2024-11-30'],
    end: '2025-12-31',
    now: '2025-03-01T00:00:00Z',
    want: { target_end: '2025-01-31', target_end_source: 'availability', delta_end: '2025-01-31' },
  },
  {
    name: 'an end before the current end changes nothing and says so',
    source: chirps,
    committed: ['2024-11-01', '2024-11-30'],
    end: '2024-11-15',
    now: '2025-03-01T00:00:00Z',
    want: { action: 'no_op', reason: 'end_before_current_end', target_end: '2024-11-15', delta_start: null },
  },
  {
    name: 'an end equal to the current end is up to date',
    source: chirps,
    committed: ['2024-11-01', '2024-11-30'],
    end: '2024-11-30',
    now: '2025-03-01T00:00:00Z',
    want: { action: 'no_op', reason: 'up_to_date', target_end_source: 'request' },
  },
  {
    name: 'ERA5-Land hourly lag across midnight',
    source: era5,
    committed: ['2025-02-28T00', '2025-02-28T23'],
    now: '2025-03-06T02:30:00Z',
    want: { action: 'append', delta_start: '2025-03-01T00', delta_end: '2025-03-01T01' },
  },
  {
    name: 'a template overrides the provider lag',
    source: { ...era5, availability: { hours: 2 } },
    committed: ['2025-03-05T00', '2025-03-05T23'],
    now: '2025-03-06T03:30:00Z',
    want: { action: 'append', delta_start: '2025-03-06T00', delta_end: '2025-03-06T00' },
  },
  {
    name: 'a NetCDF store is rematerialized, not appended',
    source: chirps,
    format: 'netcdf',
    committed: ['2024-12-01', '2024-12-31'],
    now: '2025-02-21T00:00:00Z',
    want: { action: 'rematerialize', reason: 'new_periods_available', delta_start: '2025-01-01' },
  },
  {
    name: 'the sample source defaults to today',
    source: { provider: 'sample', periodType: 'daily' },
    committed: ['2025-03-01', '2025-03-04'],
    now: '2025-03-06T08:00:00Z',
    want: { action: 'append', target_end: '2025-03-06', target_end_source: 'today', delta_start: '2025-03-05' },
  },
  {
    name: 'weekly periods cross ISO week 53',
    source: sampleWeekly,
    committed: ['2020-W50', '2020-W52'],
    now: '2021-01-05T08:00:00Z',
    want: { action: 'append', delta_start: '2020-W53', delta_end: '2021-W01', target_end_source: 'today' },
  },
  {
    name: 'a release dataset rematerializes when a newer year is published',
    source: worldpop,
    committed: ['2020', '2025'],
    now: '2026-06-01T00:00:00Z',
    want: {
      action: 'rematerialize',
      reason: 'newer_release_available',
      sync_kind: 'release',
      target_end: '2026',
      target_end_source: 'today',
      delta_start: '2026',
    },
  },
  {
    name: 'a release template that allows future years accepts a future end',
    source: worldpop,
    committed: ['2020', '2025'],
    end: '2031',
    now: '2026-06-01T00:00:00Z',
    want: { action: 'rematerialize', target_end: '2030', target_end_source: 'availability', delta_end: '2030' },
  },
  {
    name: 'a forecast whose window moved is fetched again from now to its horizon',
    source: forecast,
    committed: ['2025-12-28', '2025-12-31'],
    now: '2025-12-30T06:00:00Z',
    want: {
      action: 'rematerialize',
      reason: 'forecast_window_moved',
      target_end: '2026-01-02',
      target_end_source: 'availability',
      delta_start: '2025-12-30',
      delta_end: '2026-01-02',
    },
  },
  {
    name: 'a forecast holding the current window is up to date',
    source: forecast,
    committed: ['2025-12-30', '2026-01-02'],
    now: '2025-12-30T23:00:00Z',
    want: { action: 'no_op', reason: 'up_to_date', target_end: '2026-01-02' },
  },
  {
    name: 'a forecast end before the window changes nothing',
    source: forecast,
    committed: ['2025-12-30', '2026-01-02'],
    end: '2025-12-29',
    now: '2025-12-30T06:00:00Z',
    want: { action: 'no_op', reason: 'end_before_current_end', target_end_source: 'request' },
  },
  {
    name: 'a forecast end past its horizon is clamped to it',
    source: forecast,
    committed: ['2025-12-29', '2026-01-01'],
    end: '2026-02-01',
    now: '2025-12-30T06:00:00Z',
    want: { action: 'rematerialize', target_end: '2026-01-02', target_end_source: 'availability' },
  },
  {
    name: 'a static source is not syncable',
    source: { provider: 'sample', periodType: 'daily', kind: 'static' },
    committed: ['2025-03-01', '2025-03-04'],
    now: '2025-03-06T08:00:00Z',
    want: { action: 'not_syncable', reason: 'static_source', sync_kind: 'static', target_end: null },
  },
  {
    name: 'a dataset with no committed version is not syncable',
    source: chirps,
    committed: undefined,
    now: '2025-03-06T08:00:00Z',
    want: { action: 'not_syncable', reason: 'not_materialized', current_end: null },
  },
  {
    name: 'a source whose provider this build lacks is not syncable',
    source: { provider: 'cmip7', periodType: 'daily' },
    committed: ['2025-03-01', '2025-03-04'],
    now: '2025-03-06T08:00:00Z',
    want: { action: 'not_syncable', reason: 'provider_unavailable' },
  },
  {
    name: 'an invalid availability rule is reported, not thrown',
    source: { ...chirps, availability: { day: 40 } },
    committed: ['2025-01-01', '2025-01-31'],
    now: '2025-03-06T08:00:00Z',
    want: { action: 'not_syncable', reason: 'invalid_availability_rule' },
  },
];

describe('planSync', () => {
  it.each(rows)('$name', ({ source, format, committed, end, now, want }) => {
    const detail = planSync({
      source: sourceOf(source),
      dataset: datasetOf(format),
      committed: committed && { start: committed[0], end: committed[1] },
      end,
      now: new Date(now),
    });
    expect(detail).toMatchObject(want);
    expect(detail.message).not.toBe('');
  });

  it.each([['2025-13-01'], ['2025-02'], [''], ['2025-02-30']])('refuses the malformed end %j', (end) => {
    expect(() =>
      planSync({
        source: sourceOf(chirps),
        dataset: datasetOf(),
        committed: { start: '2025-01-01', end: '2025-01-31' },
        end,
        now: new Date('2025-03-06T00:00:00Z'),
      }),
    ).toThrow(PeriodError);
  });
});
