import { describe, expect, it } from 'vitest';
import { resolveRelativePeriod } from './relative-periods.ts';

const today = new Date('2026-03-04T10:00:00Z'); // a Wednesday of ISO week 10

describe('DHIS2 relative periods', () => {
  it.each([
    ['TODAY', 'daily', ['20260304']],
    ['YESTERDAY', 'daily', ['20260303']],
    ['LAST_3_DAYS', 'daily', ['20260301', '20260302', '20260303']],
    ['THIS_WEEK', 'weekly', ['2026W10']],
    ['LAST_4_WEEKS', 'weekly', ['2026W6', '2026W7', '2026W8', '2026W9']],
    ['THIS_MONTH', 'monthly', ['202603']],
    ['LAST_3_MONTHS', 'monthly', ['202512', '202601', '202602']],
    ['THIS_YEAR', 'yearly', ['2026']],
    ['LAST_5_YEARS', 'yearly', ['2021', '2022', '2023', '2024', '2025']],
  ])('%s is the %s periods %j', (id, type, ids) => {
    expect(resolveRelativePeriod(id, today)).toEqual({ type, ids });
  });

  it('counts LAST_52_WEEKS across a year boundary, ending with the last complete week (2025 has 52 ISO weeks)', () => {
    const { ids } = resolveRelativePeriod('LAST_52_WEEKS', new Date('2026-01-07T00:00:00Z'));
    expect(ids).toHaveLength(52);
    expect(ids.at(-1)).toBe('2026W1');
    expect(ids[0]).toBe('2025W2');
  });
});
