import { describe, expect, it } from 'vitest';
import { cubeOf, run, spatial, temporal, valuesOf } from '../../../../test/support/cubes.ts';
import type { DataCube } from '../../cube/cube.ts';
import { builtInRegistry } from '../../registry.ts';
import { calendarOf, DAY_MS, periodsOf } from './calendar.ts';
import { ETCCDI_INDICES } from './catalogue.ts';
import { Extreme } from './reductions.ts';

const DAY = 86_400_000;
const days = (first: string, last: string) =>
  Array.from({ length: (Date.parse(last) - Date.parse(first)) / DAY + 1 }, (_, d) =>
    new Date(Date.parse(first) + d * DAY).toISOString().slice(0, 10),
  );

/** A daily cube over `labels` of one cell per latitude, with `value(date, cell)` in `units` (none when null). */
function daily(
  labels: string[],
  value: (date: string, cell: number) => number,
  { latitudes = [45], units = 'degC' as string | null } = {},
): DataCube {
  return cubeOf(
    [
      temporal(labels),
      spatial('y', latitudes, 'EPSG:4326'),
      spatial('x', [10], 'EPSG:4326'),
      { name: 'bands', type: 'bands', labels: ['v'] },
    ],
    (i) => value(labels[Math.floor(i / latitudes.length)]!, i % latitudes.length),
    units === null ? {} : { units: { v: units } },
  );
}

/** Cells of `manyCells`: over 20 years, more values than one block holds. */
const MANY_CELLS = 48 * 50;

/**
 * A daily cube over `labels` of 48 x 50 cells, `value(day, cell)` in `units`, stored in float32 chunks of 400
 * days; the rows' latitudes are `firstLatitude`, the next degree, and so on.
 */
function manyCells(
  labels: string[],
  value: (day: number, cell: number) => number,
  { units = 'degC', firstLatitude = 0 } = {},
): DataCube {
  const [ny, nx] = [48, 50];
  return cubeOf(
    [
      temporal(labels),
      spatial(
        'y',
        Array.from({ length: ny }, (_, i) => firstLatitude + i),
        'EPSG:4326',
      ),
      spatial(
        'x',
        Array.from({ length: nx }, (_, i) => i),
        'EPSG:4326',
      ),
      { name: 'bands', type: 'bands', labels: ['v'] },
    ],
    (i) => value(Math.floor(i / MANY_CELLS), i % MANY_CELLS),
    { chunkShape: [400, ny, nx, 1], float32: true, units: { v: units } },
  );
}

async function index(process: string, args: Record<string, unknown>) {
  const cube = (await run(process, args)) as DataCube;
  return { labels: cube.dimension('t')!.labels, values: await valuesOf(cube) };
}

describe('ETCCDI indices, by hand', () => {
  it('bootstraps the base period (Zhang et al. 2005): a year is never judged by thresholds it made', async () => {
    // One value a year: 1, 2 and 3 in the base years, 3.5 after. July's 90th percentile of the base is 3, which
    // 2003's days do not exceed; with 2003 replaced by 2001 or by 2002 it is 2, which they do in both samples.
    const labels = days('2001-01-01', '2004-12-31');
    const data = daily(labels, (date) => ({ 2001: 1, 2002: 2, 2003: 3 })[date.slice(0, 4)] ?? 3.5);
    const { labels: months, values } = await index('etccdi_tx90p', {
      data,
      frequency: 'month',
      base_period: [2001, 2003],
    });
    const july = (year: number) => values[months.indexOf(`${year}-07`)];
    expect([2001, 2002, 2003, 2004].map(july)).toEqual([0, 0, 100, 100]);
  });

  it('gives no value to a month with more than 3 missing days, a year with more than 15, and a short year', async () => {
    // From 1 July 2001: the first half of 2001 is missing. In 2002, 4 days of March and 3 of May are missing.
    const labels = days('2001-07-01', '2003-12-31').filter((d) => !(d >= '2002-03-10' && d <= '2002-03-13'));
    const data = daily(labels, (date) => (date >= '2002-05-01' && date <= '2002-05-03' ? NaN : Number(date.slice(8))));
    const annual = await index('etccdi_txx', { data });
    expect(annual.labels).toEqual(['2001', '2002', '2003']);
    expect(annual.values).toEqual([NaN, NaN, 31]);
    const monthly = await index('etccdi_txx', { data, frequency: 'month' });
    const month = (label: string) => monthly.values[monthly.labels.indexOf(label)];
    expect([month('2001-07'), month('2002-03'), month('2002-05'), month('2002-06')]).toEqual([31, NaN, 31, 30]);
  });

  it('counts the days after the last of a series that ends within a year as missing', async () => {
    // Values -14 to 16 by day of the month: 14 frost days a month. Ending on 10 December, 21 days of 2002 are
    // missing, which fails its year and its December; ending on 29 December, two, which fail neither.
    const value = (date: string) => Number(date.slice(8)) - 15;
    for (const [last, frostDays2002, december] of [
      ['2002-12-10', NaN, NaN],
      ['2002-12-29', 168, 14],
    ] as const) {
      const data = daily(days('2001-01-01', last), value);
      expect((await index('etccdi_fd', { data })).values).toEqual([168, frostDays2002]);
      const monthly = await index('etccdi_txx', { data, frequency: 'month' });
      expect(monthly.values.slice(-2)).toEqual([15, december]);
    }
  });

  it("counts each cell's missing days apart: three in one cell and two in the next fail neither's month", async () => {
    // May 2002: the first cell lacks days 1 to 3, the second days 4 and 5.
    const labels = days('2002-01-01', '2002-12-31');
    const gap = (date: string, cell: number) =>
      date.slice(5, 7) === '05' &&
      (cell === 0 ? date.slice(8) <= '03' : date.slice(8) >= '04' && date.slice(8) <= '05');
    const data = daily(labels, (date, cell) => (gap(date, cell) ? NaN : Number(date.slice(8))), {
      latitudes: [45, 46],
    });
    const { labels: months, values } = await index('etccdi_txx', { data, frequency: 'month' });
    const may = months.indexOf('2002-05');
    expect(values.slice(2 * may, 2 * may + 2)).toEqual([31, 31]);
  });

  /**
   * The days 2002's two cells lack in the missing-day tests below: May, the first days 1 to 3, the second days 4
   * and 5 (neither fails); June, the first days 1 to 4 (it fails), the second days 28 to 30.
   */
  const lacks = (date: string, cell: number) => {
    const [month, day] = [date.slice(5, 7), Number(date.slice(8))];
    if (month === '05') return cell === 0 ? day <= 3 : day === 4 || day === 5;
    if (month === '06') return cell === 0 ? day <= 4 : day >= 28;
    return false;
  };

  it.each([
    ['degC', 0],
    ['K', 273.15],
  ])(
    "counts each cell's missing days apart with the temporal dimension not first, chunked, in %s",
    async (units, offset) => {
      // May 2002: the first cell lacks days 1 to 3, the second days 4 and 5: neither fails. June: the first lacks
      // days 1 to 4 and fails, the second days 28 to 30 and keeps the 27th.
      const labels = days('2002-01-01', '2002-12-31');
      const data = cubeOf(
        [
          spatial('y', [45, 46], 'EPSG:4326'),
          temporal(labels),
          spatial('x', [10], 'EPSG:4326'),
          { name: 'bands', type: 'bands', labels: ['v'] },
        ],
        (i) => {
          const [cell, date] = [Math.floor(i / labels.length), labels[i % labels.length]!];
          return lacks(date, cell) ? NaN : Number(date.slice(8)) + offset;
        },
        { chunkShape: [2, 10, 1, 1], float32: true, units: { v: units } },
      );
      const { labels: months, values } = await index('etccdi_txx', { data, frequency: 'month' });
      const [may, june] = [months.indexOf('2002-05'), months.indexOf('2002-06')];
      // Cell-major output: each cell's twelve months.
      const [first, second] = [values.slice(0, 12), values.slice(12)];
      expect(first[may]).toBeCloseTo(31, 4);
      expect(second[may]).toBeCloseTo(31, 4);
      expect(first[june]).toBeNaN();
      expect(second[june]).toBeCloseTo(27, 4);
      expect(first[0]).toBeCloseTo(31, 4);
    },
  );

  it("counts each cell's missing days apart when the days are reduced where they were decoded (time first, no conversion)", async () => {
    // As above, the temporal dimension first and the stored unit the working one: May 2002, the first cell lacks
    // days 1 to 3, the second days 4 and 5; June, the first lacks days 1 to 4 (it fails the month, and so the
    // year), the second days 28 to 30.
    const labels = days('2002-01-01', '2002-12-31');
    const data = cubeOf(
      [
        temporal(labels),
        spatial('y', [45, 46], 'EPSG:4326'),
        spatial('x', [10], 'EPSG:4326'),
        { name: 'bands', type: 'bands', labels: ['v'] },
      ],
      (i) => {
        const [cell, date] = [i % 2, labels[Math.floor(i / 2)]!];
        return lacks(date, cell) ? NaN : Number(date.slice(8));
      },
      { chunkShape: [10, 2, 1, 1], float32: true, units: { v: 'degC' } },
    );
    const { labels: months, values: txx } = await index('etccdi_txx', { data, frequency: 'month' });
    const [may, june] = [months.indexOf('2002-05'), months.indexOf('2002-06')];
    // Period-major output over (month, y): each month's two cells.
    expect([txx[2 * may], txx[2 * may + 1]]).toEqual([31, 31]);
    expect(txx[2 * june]).toBeNaN();
    expect(txx[2 * june + 1]).toBe(27);
    // Days above 25 degC in 2002: the first cell fails the year with June, the second lacks three of June's.
    const { values: su } = await index('etccdi_su', { data });
    expect(su[0]).toBeNaN();
    expect(su[1]).toBe(6 + 3 + 6 + 5 + 6 + 2 + 6 + 6 + 5 + 6 + 5 + 6);
  });

  it('takes the extreme of float32 days (folded by the SIMD kernel) and of float64 days together, NaN left out', () => {
    // Two days of a time chunk as decoded in float32 (two rows of three cells, `length` 2: cell p * 3 + q of day
    // t at (p * 2 + t) * 3 + q), then a float64 row.
    const first = Date.UTC(2001, 0, 1) / DAY_MS;
    const calendar = calendarOf(first, first + 364);
    const periods = periodsOf(calendar, 'year', first, first + 364);
    for (const max of [true, false]) {
      const extreme = new Extreme(6, periods, max);
      const gaps = new Uint8Array(6);
      const chunk = Float32Array.of(1, 9, 3, 2, 8, 4, 5, 0, 6, 7, NaN, -5);
      expect(extreme.day(chunk, 2, 0, 2, 3, 0, gaps)).toBe(false);
      expect(extreme.day(chunk, 2, 1, 2, 3, 0, gaps)).toBe(true);
      expect(Array.from(gaps)).toEqual([0, 0, 0, 0, 1, 0]);
      expect(extreme.day(Float64Array.of(1.5, -1.5, 3.5, NaN, 10.5, -10.5), 1, 0, 1, 6, 0, gaps)).toBe(true);
      expect(Array.from(extreme.result())).toEqual(max ? [2, 9, 4, 7, 10.5, 6] : [1, -1.5, 3, 5, 0, -10.5]);
    }
  });

  it('reads an input chunked in time, with the temporal dimension not first, day by day onto the calendar', async () => {
    // Weeks of two latitudes (of three) each; the last three days of March absent. Each month's largest
    // value is the last day present in it, plus 100 per latitude.
    const labels = days('2001-01-01', '2001-12-31').filter((d) => !(d >= '2001-03-29' && d <= '2001-03-31'));
    const data = cubeOf(
      [
        spatial('y', [45, 46, 47], 'EPSG:4326'),
        temporal(labels),
        spatial('x', [10], 'EPSG:4326'),
        { name: 'bands', type: 'bands', labels: ['v'] },
      ],
      (i) => Number(labels[i % labels.length]!.slice(8)) + 100 * Math.floor(i / labels.length),
      { chunkShape: [2, 7, 1, 1], units: { v: 'degC' } },
    );
    const { labels: months, values } = await index('etccdi_txx', { data, frequency: 'month' });
    const lastDays = [31, 28, 28, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    expect(months).toHaveLength(12);
    expect(values).toEqual([0, 100, 200].flatMap((c) => lastDays.map((d) => d + c)));
  });

  it('leaves nothing of one run of years in the days the next run lacks', async () => {
    // 2,400 cells over 20 years are computed in two runs of years, the second (2020) in the arrays of the first;
    // the series lacks 1 and 2 January 2020 (a month may miss three days). 50 degC every day before 2020, 10 in it.
    const labels = days('2001-01-01', '2020-12-31').filter((d) => d !== '2020-01-01' && d !== '2020-01-02');
    const data = manyCells(labels, (day) => (labels[day]! < '2020' ? 50 : 10));
    const { values } = await index('etccdi_txx', { data, frequency: 'month' });
    const january2020 = values.slice(228 * MANY_CELLS, 229 * MANY_CELLS);
    expect(new Set(january2020)).toEqual(new Set([10]));
  });

  it('computes an index of each period own days a few years at a time over many cells, gaps included', async () => {
    // 2,400 cells over 20 years are more values than one block holds, so the years are computed in runs; 2019 is
    // absent and 2020 has half its March missing.
    const labels = days('2001-01-01', '2020-12-31').filter(
      (d) => !d.startsWith('2019') && !(d >= '2020-03-10' && d <= '2020-03-25'),
    );
    const cells = MANY_CELLS;
    const value = (day: number, cell: number) => ((day * 7 + cell * 13) % 101) / 4;
    const data = manyCells(labels, value);
    const { labels: months, values } = await index('etccdi_txx', { data, frequency: 'month' });
    expect(months).toHaveLength(240);
    const expected = new Array<number>(240 * cells).fill(-Infinity);
    labels.forEach((label, day) => {
      const month = (Number(label.slice(0, 4)) - 2001) * 12 + Number(label.slice(5, 7)) - 1;
      for (let c = 0; c < cells; c++)
        expected[month * cells + c] = Math.max(expected[month * cells + c]!, value(day, c));
    });
    const noValue = (month: number) => (month >= 216 && month < 228) || month === 230;
    const mismatches = values.filter((v, i) => {
      const e = noValue(Math.floor(i / cells)) ? NaN : expected[i]!;
      return !Object.is(v, e);
    });
    expect(mismatches).toEqual([]);
  });

  it('carries spells, Rx5day windows and southern seasons across the end of a run of years', async () => {
    // 2,400 cells over 20 years are computed in two runs of years, the first ending on 31 December 2019, or 2018
    // for the indices that read into the next year; a cell's series alone in a cube is computed in one run. Around
    // the end of 2018 and of 2019 each cell has a dry or a wet spell of its own length, or heavy rain in its last days
    // and none in January; some cells are dry for most of the year before. The first 24 rows are south of the equator.
    const labels = days('2001-01-01', '2020-12-31');
    const ends = [labels.indexOf('2019-01-01'), labels.indexOf('2020-01-01')];
    const rain = (day: number, cell: number) => {
      for (const end of ends) {
        if (cell % 50 === 7 && day >= end - 300 && day < end + 40) return 0;
        if (cell % 3 === 2 && day >= end - (cell % 4) - 1 && day < end + 10) return day < end ? 30 : 0;
        if (day >= end - (cell % 40) - 1 && day < end + (cell % 37) + 1) return cell % 3 === 0 ? 0 : 3;
      }
      return (day * 7 + cell * 13) % 11 < 4 ? ((day + cell) % 9) * 2.5 : 0;
    };
    const warmth = (day: number, cell: number) => 6 + 10 * Math.sin((2 * Math.PI * (day - 100 + (cell % 90))) / 365.25);
    const pr = manyCells(labels, rain, { units: 'mm day-1', firstLatitude: -24 });
    const t = manyCells(labels, warmth, { firstLatitude: -24 });
    const oneCell = (value: (day: number, cell: number) => number, cell: number, units: string) =>
      daily(labels, (date) => value((Date.parse(date) - Date.parse(labels[0]!)) / DAY, cell), {
        latitudes: [Math.floor(cell / 50) - 24],
        units,
      });
    const cases = [
      ['etccdi_cdd', { data: pr }, (c: number) => ({ data: oneCell(rain, c, 'mm day-1') })],
      ['etccdi_cwd', { data: pr }, (c: number) => ({ data: oneCell(rain, c, 'mm day-1') })],
      [
        'etccdi_rx5day',
        { data: pr, frequency: 'month' },
        (c: number) => ({ data: oneCell(rain, c, 'mm day-1'), frequency: 'month' }),
      ],
      [
        'etccdi_gsl',
        { tmin: t, tmax: t },
        (c: number) => ({ tmin: oneCell(warmth, c, 'degC'), tmax: oneCell(warmth, c, 'degC') }),
      ],
    ] as const;
    for (const [process, args, argsOfCell] of cases) {
      const { labels: periods, values } = await index(process, args);
      for (let cell = 0; cell < MANY_CELLS; cell += 97) {
        const alone = await index(process, argsOfCell(cell));
        const ofCell = periods.map((_, k) => values[k * MANY_CELLS + cell]);
        expect({ process, cell, values: ofCell }).toEqual({ process, cell, values: alone.values });
      }
    }
  });

  it('measures the growing season from 1 July south of the equator and from 1 January north of it', async () => {
    // Warm (10 degC) from 1 September 2001 to 31 March 2002, cold (0 degC) otherwise.
    const labels = days('2001-01-01', '2002-12-31');
    const tmin = daily(labels, (d) => (d >= '2001-09-01' && d <= '2002-03-31' ? 10 : 0), {
      latitudes: [45, -30],
    });
    const { labels: years, values } = await index('etccdi_gsl', { tmin, tmax: tmin });
    expect(years).toEqual(['2001', '2002']);
    // North (cell 0): no warm run in the first half of 2001, so 0; in 2002 from 1 January to the cold run that
    // starts on 1 July, 181 days. South (cell 1): 1 September 2001 to 31 March 2002 is 212 days; the season that
    // starts in July 2002 ends after the data (no value).
    expect(values).toEqual([0, 212, 181, NaN]);
  });

  it('credits a dry spell across the end of a year to the year it ends in, whole', async () => {
    const labels = days('2001-01-01', '2002-12-31');
    const data = daily(labels, (d) => (d >= '2001-12-20' && d <= '2002-01-10' ? 0 : 5), { units: 'mm day-1' });
    const { values } = await index('etccdi_cdd', { data });
    expect(values).toEqual([0, 22]);
  });

  it('takes 28 February threshold for 29 February', async () => {
    // Base 2001-2003: 28 February's window (26 February to 2 March) holds 0 in every year; 29 February 2004 is 1.
    const labels = days('2001-01-01', '2004-12-31');
    const data = daily(labels, (d) => (d === '2004-02-29' ? 1 : 0));
    const { labels: months, values } = await index('etccdi_tn90p', {
      data,
      frequency: 'month',
      base_period: [2001, 2003],
    });
    expect(values[months.indexOf('2004-02')]).toBeCloseTo(100 / 29, 12);
  });

  describe('units', () => {
    const labels = days('2001-01-01', '2002-12-31');
    // Temperatures from -5 to 25 degC and a rain of 0, 0.5, 3 or 12 mm a day, both varying from day to day.
    const celsius = (date: string) => -5 + ((Date.parse(date) / DAY) % 31);
    const rain = (date: string) => [0, 0.5, 3, 12][(Date.parse(date) / DAY) % 4]!;

    it.each([
      ['etccdi_fd', { data: 'tmin' }],
      ['etccdi_txx', { data: 'tmax' }],
      ['etccdi_dtr', { tmin: 'tmin', tmax: 'tmax' }],
    ])('%s reads K as degC and gives its result in its unit', async (process, inputs) => {
      const args = (units: string, offset: number) =>
        Object.fromEntries(
          Object.entries(inputs).map(([parameter, variable]) => [
            parameter,
            daily(labels, (d) => celsius(d) + (variable === 'tmax' ? 5 : 0) + offset, { units }),
          ]),
        );
      const degC = (await run(process, args('degC', 0))) as DataCube;
      const kelvin = (await run(process, args('K', 273.15))) as DataCube;
      const [expected, actual] = await Promise.all([valuesOf(degC), valuesOf(kelvin)]);
      expect(actual).toHaveLength(2);
      actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 9));
      const unit = ETCCDI_INDICES.find((i) => i.id === process)!.unit;
      expect(kelvin.metadata.units).toEqual({ v: unit });
    });

    it.each(['etccdi_prcptot', 'etccdi_cdd', 'etccdi_r10mm', 'etccdi_sdii'])(
      '%s reads kg m-2 s-1 as mm day-1',
      async (process) => {
        const perDay = await index(process, { data: daily(labels, rain, { units: 'mm day-1' }) });
        const perSecond = await index(process, {
          data: daily(labels, (d) => rain(d) / 86_400, { units: 'kg m-2 s-1' }),
        });
        expect(perDay.values.every((v) => v > 0)).toBe(true);
        perSecond.values.forEach((v, i) => expect(v).toBeCloseTo(perDay.values[i]!, 9));
      },
    );

    it('takes tmin and tmax whose bands are named after their variables', async () => {
      const band = (name: string, offset: number) =>
        cubeOf(
          [temporal(labels), spatial('y', [45], 'EPSG:4326'), { name: 'bands', type: 'bands', labels: [name] }],
          (d) => offset + (d % 7),
          { units: { [name]: 'degC' } },
        );
      const dtr = (await run('etccdi_dtr', { tmin: band('tasmin', 0), tmax: band('tasmax', 4) })) as DataCube;
      expect(await valuesOf(dtr)).toEqual([4, 4]);
      expect(dtr.metadata.units).toEqual({ tasmin: 'degC' });
    });

    it('refuses an input without units, naming the variable and the unit expected', async () => {
      await expect(run('etccdi_fd', { data: daily(labels, celsius, { units: null }) })).rejects.toMatchObject({
        code: 'ProcessParameterInvalid',
        message: expect.stringMatching(/'data'.*variable 'v' has no units; expected temperature in 'degC'/),
      });
    });

    it.each([
      ['etccdi_fd', 'data', 'mm day-1', /variable 'v' has units 'mm day-1'; expected temperature in 'degC'/],
      ['etccdi_cdd', 'data', 'degC', /variable 'v' has units 'degC'; expected precipitation in 'mm day-1'/],
      ['etccdi_dtr', 'tmax', 'mm day-1', /'tmax'.*variable 'v' has units 'mm day-1'; expected temperature/],
    ])('refuses %s given %s in %s', async (process, parameter, units, message) => {
      const args = { data: daily(labels, rain), tmin: daily(labels, celsius), tmax: daily(labels, celsius) };
      const inputs = Object.keys(ETCCDI_INDICES.find((i) => i.id === process)!.inputs);
      const given = Object.fromEntries(
        inputs.map((p) => [p, p === parameter ? daily(labels, rain, { units }) : args[p as keyof typeof args]]),
      );
      await expect(run(process, given)).rejects.toMatchObject({ code: 'ProcessParameterInvalid', message });
    });
  });

  it('has no monthly form of an annual index', async () => {
    const data = daily(days('2001-01-01', '2002-12-31'), () => 0);
    await expect(run('etccdi_fd', { data, frequency: 'month' })).rejects.toMatchObject({
      code: 'ProcessParameterUnsupported',
    });
  });

  it.each([
    ['etccdi_tn10p', { base_period: [1961, 1990] }, /1961-1990 is not within the data's years 2001-2002/],
    ['etccdi_tn10p', { base_period: [2001, 2001] }, /at least two years/],
  ])('refuses %s with %j', async (process, args, message) => {
    const data = daily(days('2001-01-01', '2002-12-31'), () => 0);
    await expect(run(process, { data, ...args })).rejects.toMatchObject({
      code: 'ProcessParameterInvalid',
      message,
    });
  });

  it('refuses a series that is not daily', async () => {
    const data = daily(['2001-01-01T00:00:00Z', '2001-01-01T12:00:00Z'], () => 0);
    await expect(run('etccdi_fd', { data })).rejects.toMatchObject({ message: /two labels on one day/ });
  });

  it.each(ETCCDI_INDICES.map((i) => [i.id, i] as const))(
    '%s is described with its inputs, frequencies and unit',
    (id, i) => {
      const description = builtInRegistry().get(id)!.description;
      expect(description.summary).toMatch(new RegExp(`^ETCCDI ${i.name}: `));
      const parameters = description.parameters.map((p) => p.name);
      expect(parameters.slice(0, Object.keys(i.inputs).length)).toEqual(Object.keys(i.inputs));
      const frequency = description.parameters.find((p) => p.name === 'frequency');
      expect(frequency ? (frequency.schema as { enum: string[] }).enum : ['year']).toEqual(i.frequencies);
      expect(parameters.includes('base_period')).toBe(Boolean(i.percentile));
      expect(parameters.includes('threshold')).toBe(Boolean(i.threshold));
      expect(description.description).toContain(
        `Unit of the result: ${i.unit === '%' ? '% (percent of days)' : i.unit}.`,
      );
    },
  );
});
