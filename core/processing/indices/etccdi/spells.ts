/**
 * Spell indices: the longest run of days meeting a condition (CDD, CWD) and the days in runs of at least six
 * (WSDI, CSDI). A missing day ends a run. CDD and CWD follow climdex: a run may cross a period's end and counts,
 * whole, in the period where it ends; a period that lies wholly inside a run that goes on has no value (NaN), and a
 * period in which no run ends has 0. WSDI and CSDI count runs within each year (a run is cut at 31 December).
 */

/** The calendar days of the series' first and last labels: days outside neither start nor end a run. */
export interface SeriesSpan {
  readonly first: number;
  readonly last: number;
}

/** `meets(d, c)`: 1 when day `d` of cell `c` meets the spell's condition, 0 when not, NaN when missing. */
export type DayTest = (d: number, c: number) => number;

export function longestSpell(
  span: SeriesSpan,
  cells: number,
  ofDay: Int32Array,
  count: number,
  meets: DayTest,
): Float64Array {
  const out = new Float64Array(count * cells);
  const run = new Int32Array(cells);
  // Whether every day of the current period so far met the condition.
  const inside = new Uint8Array(cells).fill(1);
  for (let d = span.first; d <= span.last; d++) {
    const p = ofDay[d]!;
    const next = d < span.last ? ofDay[d + 1]! : -2;
    for (let c = 0; c < cells; c++) {
      if (meets(d, c) === 1) {
        run[c]!++;
        if (d === span.last || meets(d + 1, c) !== 1) {
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
