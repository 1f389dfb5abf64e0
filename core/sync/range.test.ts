import { describe, expect, it } from 'vitest';
import { PeriodError } from '../periods/index.ts';
import type { DataSource } from '../resources/data-source/schema.ts';
import { runRange } from './range.ts';

const source = (temporalDirection: 'past' | 'future', provider = 'sample', availability?: Record<string, unknown>) =>
  ({
    metadata: { name: 'src' },
    spec: { provider: { name: provider }, temporalDirection, sync: { kind: 'temporal', availability } },
  }) as unknown as DataSource;
const forecast = source('future', 'sample', { rule: 'forecast-hours', hours: 72 });
const now = new Date('2025-12-30T06:00:00Z');
const span = (r: ReturnType<typeof runRange>) => [r.start, r.end, r.periods.length];

describe('runRange', () => {
  it('needs a start for a historical source and ends at the last complete period', () => {
    expect(() => runRange(source('past'), 'daily', undefined, undefined, now)).toThrow(/start is required/);
    expect(span(runRange(source('past'), 'daily', '2025-12-01', undefined, now))).toEqual([
      '2025-12-01',
      '2025-12-29',
      29,
    ]);
  });

  it('starts a forecast from now and ends it at its horizon, across a year end', () => {
    expect(span(runRange(forecast, 'daily', undefined, undefined, now))).toEqual(['2025-12-30', '2026-01-02', 4]);
    expect(span(runRange(forecast, 'hourly', undefined, undefined, now))).toEqual([
      '2025-12-30T06',
      '2026-01-02T06',
      73,
    ]);
  });

  it('keeps an explicit start and end of a forecast', () => {
    expect(span(runRange(forecast, 'daily', '2025-12-31', '2026-01-01', now))).toEqual(['2025-12-31', '2026-01-01', 2]);
  });

  it('refuses a forecast whose horizon is unknown', () => {
    const unknown = source('future', 'no-such-provider');
    expect(() => runRange(unknown, 'daily', undefined, undefined, now)).toThrow(PeriodError);
    expect(() => runRange(unknown, 'daily', undefined, undefined, now)).toThrow(/no provider named no-such-provider/);
  });
});
