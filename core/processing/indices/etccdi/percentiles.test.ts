import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../test/support/seeded-random.ts';
import { calendarOf, DAY_MS } from './calendar.ts';
import { exceedances, quantileType8 } from './percentiles.ts';

describe('the bootstrap of the base period', () => {
  it('averages, for each base day, the exceedances of the samples in which another year replaces its own', () => {
    // Three base years without a leap day, two cells of small whole values (many ties), a few missing.
    const calendar = calendarOf(Date.UTC(2001, 0, 1) / DAY_MS, Date.UTC(2003, 11, 31) / DAY_MS);
    const cells = 2;
    const random = seededRandom(3);
    const values = Float64Array.from({ length: calendar.days * cells }, () =>
      random() < 0.02 ? NaN : Math.floor(random() * 6),
    );
    const at = (year: number, key: number, c: number) => values[((year - 2001) * 365 + key) * cells + c]!;
    // The window of a calendar day of a year, as many days of it as the data has, NaN left out.
    const window = (year: number, key: number, c: number) =>
      [-2, -1, 0, 1, 2]
        .map((j) => (year - 2001) * 365 + key + j)
        .filter((d) => d >= 0 && d < calendar.days)
        .map((d) => values[d * cells + c]!)
        .filter((v) => !Number.isNaN(v));
    const years = [2001, 2002, 2003];
    const actual = exceedances(values, cells, calendar, { first: 2001, last: 2003 }, 0.9, 'above', true);
    for (const c of [0, 1])
      for (const year of years)
        for (let key = 0; key < 365; key++) {
          const v = at(year, key, c);
          const shares = years
            .filter((other) => other !== year)
            .map((other) => {
              const sample = years
                .map((y) => (y === year ? other : y))
                .flatMap((y) => window(y, key, c))
                .sort((a, b) => a - b);
              return v > quantileType8(sample, sample.length, 0.9) ? 1 : 0;
            });
          const expected = Number.isNaN(v) ? NaN : (shares[0]! + shares[1]!) / 2;
          expect(actual[((year - 2001) * 365 + key) * cells + c], `${year} day ${key} cell ${c}`).toBe(expected);
        }
  });
});
