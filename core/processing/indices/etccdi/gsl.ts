/**
 * Growing season length as climdex computes ETCCDI's GSL: in a year (1 January to 31 December north of the equator,
 * 1 July to 30 June south of it, labelled by the year it starts in), the days from the first day of the first run
 * of at least six days with a daily mean temperature above 5 degC that starts and ends in the first half, to the day
 * before the first day of the first such run below 5 degC in the second half; to the year's end when no such run
 * follows, 0 when none starts. The daily mean is (TN + TX) / 2; a missing day belongs to no run.
 */
import type { Calendar } from './calendar.ts';

export const GSL_RUN_DAYS = 6;
export const GSL_THRESHOLD = 5;
/** Days of 1 January to 30 June in a leap year: the most a southern season has in the year after its start. */
export const SOUTHERN_SECOND_HALF_DAYS = 182;

/** Daily minimum and maximum temperature: their mean is the day's. */
type Extremes = readonly [Float64Array, Float64Array];

/** The first day of the first run of `GSL_RUN_DAYS` days of `from` to `to` (exclusive) that passes, or -1. */
function firstRun([tmin, tmax]: Extremes, cells: number, c: number, from: number, to: number, warm: boolean): number {
  let run = 0;
  for (let d = from; d < to; d++) {
    const v = (tmin[d * cells + c]! + tmax[d * cells + c]!) / 2;
    if (warm ? v > GSL_THRESHOLD : v < GSL_THRESHOLD) {
      if (++run === GSL_RUN_DAYS) return d - GSL_RUN_DAYS + 1;
    } else run = 0;
  }
  return -1;
}

/**
 * Per year of `years` (labels of consecutive calendar years) and cell, the season length; `south[c]`: the cell is
 * south of the equator.
 */
export function growingSeasonLength(
  calendar: Calendar,
  extremes: Extremes,
  cells: number,
  firstYear: number,
  years: number,
  south: Uint8Array,
): Float64Array {
  const out = new Float64Array(years * cells).fill(NaN);
  const dayOf = (year: number, month: number) =>
    (Date.UTC(year, month - 1, 1) - Date.UTC(calendar.year[0]!, 0, 1)) / 86_400_000;
  for (let k = 0; k < years; k++) {
    const y = firstYear + k;
    for (let c = 0; c < cells; c++) {
      const start = south[c] ? dayOf(y, 7) : dayOf(y, 1);
      const middle = south[c] ? dayOf(y + 1, 1) : dayOf(y, 7);
      const end = south[c] ? dayOf(y + 1, 7) : dayOf(y + 1, 1);
      if (start < 0 || end > calendar.days) continue;
      const begins = firstRun(extremes, cells, c, start, middle, true);
      if (begins < 0) {
        out[k * cells + c] = 0;
        continue;
      }
      const cold = firstRun(extremes, cells, c, middle, end, false);
      out[k * cells + c] = (cold < 0 ? end : cold) - begins;
    }
  }
  return out;
}

/** Each day's season year (index from `firstYear`, -1 for none) for the cells of one hemisphere. */
export function seasonYears(calendar: Calendar, firstYear: number, years: number, south: boolean): Int32Array {
  return Int32Array.from({ length: calendar.days }, (_, d) => {
    const k = (south && calendar.month[d]! < 7 ? calendar.year[d]! - 1 : calendar.year[d]!) - firstYear;
    return k >= 0 && k < years ? k : -1;
  });
}
