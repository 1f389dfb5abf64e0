import { describe, expect, it } from 'vitest';
import { relativePeriodIds, relativePeriods, resolvePeriods, UnknownPeriodError } from './periods.ts';

const at = (iso: string) => new Date(`${iso}T12:00:00Z`);

describe('relative periods', () => {
  it('reach back over a year boundary', () => {
    expect(relativePeriodIds(relativePeriods.LAST_3_MONTHS!, at('2024-02-10'))).toEqual(['202311', '202312', '202401']);
    expect(relativePeriodIds(relativePeriods.LAST_5_YEARS!, at('2024-02-10'))).toEqual([
      '2019',
      '2020',
      '2021',
      '2022',
      '2023',
    ]);
    expect(relativePeriodIds(relativePeriods.LAST_3_DAYS!, at('2024-03-01'))).toEqual([
      '20240227',
      '20240228',
      '20240229',
    ]);
  });

  it('count ISO weeks, whose year is that of their Thursday', () => {
    // 2021-01-03 is a Sunday of ISO week 53 of 2020.
    expect(relativePeriodIds(relativePeriods.THIS_WEEK!, at('2021-01-03'))).toEqual(['2020W53']);
    expect(relativePeriodIds(relativePeriods.LAST_WEEK!, at('2021-01-04'))).toEqual(['2020W53']);
    const year = relativePeriodIds(relativePeriods.LAST_52_WEEKS!, at('2024-07-15'));
    expect([year.length, year[0], year.at(-1)]).toEqual([52, '2023W29', '2024W28']);
  });

  it('mix with period ids, in the order given and without repeats', () => {
    expect(resolvePeriods(['202406', 'LAST_MONTH', '2024W5', '20240105'], at('2024-07-15'))).toEqual([
      '202406',
      '2024W5',
      '20240105',
    ]);
  });

  it('refuse what is neither, and ids written otherwise than the tables write them', () => {
    for (const item of ['LAST_2_MONTHS', '2024W05', '202413', '2024-01', 'toString'])
      expect(() => resolvePeriods([item], at('2024-07-15')), item).toThrow(UnknownPeriodError);
  });
});
