/**
 * Spell indices: the longest run of days meeting a condition (CDD, CWD) and the days in runs of at least six
 * (WSDI, CSDI). A missing day ends a run. CDD and CWD follow climdex: a run may cross a period's end and counts,
 * whole, in the period where it ends; a period that lies wholly inside a run that goes on has no value (NaN), and a
 * period in which no run ends has 0. WSDI and CSDI count runs within each year (a run is cut at 31 December).
 */
import type { Periods } from './calendar.ts';

/** The calendar days of the series' first and last labels: days outside neither start nor end a run. */
export interface SeriesSpan {
  readonly first: number;
  readonly last: number;
}

/** `meets(d, c)`: 1 when day `d` of cell `c` meets the spell's condition, 0 when not, NaN when missing. */
export type DayTest = (d: number, c: number) => number;

/** A day's test for CDD and CWD: its value is at least `limit` (`atLeast`) or below it; a missing day is neither. */
export interface SpellCondition {
  readonly atLeast: boolean;
  readonly limit: number;
}

/**
 * The longest spell ending in each period, over the days of `span`; `values` holds the day after the span's last
 * too when the calendar goes on (NaN when the series lacks it), which tells whether a spell ends there. `run`:
 * each cell's spell going on when the span starts, and going on when it ends (the next run of years goes on from
 * it).
 */
export function longestSpell(
  values: Float64Array,
  cells: number,
  span: SeriesSpan,
  { ofDay, count }: Pick<Periods, 'ofDay' | 'count'>,
  { atLeast, limit }: SpellCondition,
  run: Int32Array,
): Float64Array {
  const out = new Float64Array(count * cells);
  // Whether every day of the current period so far met the condition.
  const inside = new Uint8Array(cells).fill(1);
  const days = ofDay.length;
  for (let d = span.first; d <= span.last; d++) {
    const p = ofDay[d]!;
    const next = d < span.last ? ofDay[d + 1]! : -2;
    const row = d * cells;
    const after = d + 1 < days ? row + cells : -1;
    for (let c = 0; c < cells; c++) {
      const v = values[row + c]!;
      if (atLeast ? v >= limit : v < limit) {
        run[c]!++;
        const w = after < 0 ? NaN : values[after + c]!;
        if (!(atLeast ? w >= limit : w < limit)) {
          if (p >= 0 && run[c]! > out[p * cells + c]!) out[p * cells + c] = run[c]!;
          run[c] = 0;
        }
      } else {
        run[c] = 0;
        inside[c] = 0;
      }
      if (p >= 0 && next !== p) {
        if (inside[c] && out[p * cells + c] === 0) out[p * cells + c] = NaN;
        inside[c] = 1;
      }
    }
  }
  return out;
}

/** Days in runs of at least `minimum` days meeting the test, runs cut at period ends (WSDI, CSDI). */
export function daysInSpells(
  days: number,
  cells: number,
  ofDay: Int32Array,
  count: number,
  meets: DayTest,
  minimum: number,
): Float64Array {
  const out = new Float64Array(count * cells);
  const run = new Int32Array(cells);
  for (let d = 0; d < days; d++) {
    const p = ofDay[d]!;
    const periodEnds = d + 1 === days || ofDay[d + 1] !== p;
    for (let c = 0; c < cells; c++) {
      if (meets(d, c) === 1) run[c]!++;
      else {
        if (p >= 0 && run[c]! >= minimum) out[p * cells + c]! += run[c]!;
        run[c] = 0;
      }
      if (periodEnds) {
        if (p >= 0 && run[c]! >= minimum) out[p * cells + c]! += run[c]!;
        run[c] = 0;
      }
    }
  }
  return out;
}
